"""The settings' `schemas`: a module that cannot be imported is one line naming it; a node no file provides gets
a hint saying it may be registered from Python, unless it reads as a typo of an option the group has."""

import pytest

from harness.composition.schemas import HINT, SchemaImportError, import_schemas, missing_node_hint


def test_a_module_that_cannot_be_imported_is_one_line(tmp_path, monkeypatch):
    (tmp_path / "unit44_broken_schema.py").write_text("raise RuntimeError('no\\nway')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(SchemaImportError, match=r"^schemas: cannot import 'unit44_broken_schema' \(RuntimeError: no way\)$"):
        import_schemas(["json", "unit44_broken_schema"])
    with pytest.raises(SchemaImportError, match="ModuleNotFoundError"):
        import_schemas(["unit44_no_such_module"])


def test_a_missing_node_gets_the_hint_unless_it_is_a_typo():
    loaded = "In 'train': Could not load 'vmas_balance_config'."
    assert missing_node_hint(loaded) == f"'vmas_balance_config': {HINT}"
    assert missing_node_hint(loaded, schemas=["app.conf"]) == (
        "'vmas_balance_config' is not registered by the modules in `schemas` (app.conf) and no file provides it"
    )
    found = "Could not find 'backend/gpuu'"
    assert missing_node_hint(found, {"backend": ["cpu", "gpu"]}) == ""  # Hydra lists the group's options already
    assert missing_node_hint("Could not load 'backend/gpuu'", {"backend": ["cpu", "gpu"]}) == ""  # close to gpu: a typo
    assert missing_node_hint("Could not find 'task/balance'", {}) == f"'task/balance': {HINT}"
    assert missing_node_hint("some other error") == ""
