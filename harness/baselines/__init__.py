"""What a case is compared with: goldens on disk (`goldens`), a git base (`gitrepo`, `history`), a fetched PyPI release
(`releases`, `kept_trees`), and the comparisons built on them (`kinds`, `moves`, `diff_modes`).

Owns: git and the baseline. May import: `harness.gates`, `harness.model`, `harness.composition`, `harness.readers`,
`harness.rules`.
"""
