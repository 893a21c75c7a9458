"""Names vulture reports as unused (at 60% confidence) that are used where it cannot see: called by name by pytest,
syrupy or Python itself, or set for a library that reads them. Each line says who uses it.

The file is never imported; vulture reads it as code that uses the names. A name listed here that the code no longer
defines is not reported, so the list is kept to what vulture prints without it.
"""

# harness/__init__.py: Python calls a module's __getattr__ and __dir__ (PEP 562) for `harness.check` and `dir(harness)`.
__getattr__
__dir__

# harness/plugin.py: pytest calls its hooks by name, `reportinfo` and `collect` on its items and collectors, and a
# fixture by the argument name a test asks for.
pytest_addoption
pytest_load_initial_conftests
pytest_configure
pytest_collect_file
pytest_terminal_summary
reportinfo
collect
harness_cases
composed_config
_.file_or_dir  # pytest's own namespace attribute: the paths it collects

# harness/snapshot.py: syrupy calls its extension's hooks and reads `file_extension` by name; an override keeps
# every parameter of syrupy's signature (SingleFileSnapshotExtension), which syrupy passes by keyword.
file_extension
discovery_dirname
get_snapshot_name
get_file_basename
serialize
discover_snapshots
delete_snapshots
matches_test_location
write_snapshot_collection
read_snapshot_data_from_location
diff_lines
ignore_extensions  # discover_snapshots
snapshot_names  # delete_snapshots
name_order  # write_snapshot_collection
session_id  # read_snapshot_data_from_location
snapshot_name  # read_snapshot_data_from_location

# harness/composition/parallel.py: the stdlib's tempfile reads `tempfile.tempdir` for every temporary file.
_.tempdir
# harness/gates/linear.py: RE2's options object reads these attributes when a pattern is compiled.
_.log_errors
_.encoding

# harness/gates/unicode_classes.py: the Unicode version the generated tables come from, read by the test that
# regenerates them (tests/unit/gates/test_linear.py) to compare under the same version only.
UNICODE_VERSION
