"""What a case is compared with: goldens on disk, a git base (`gitrepo`, `history`), a fetched PyPI release
(`fetch`, `kept_trees`), and the comparisons built on them (`baselines`, `moves`, `diff_modes`).

Owns: git and the baseline. May import: `harness.gates`, `harness.model`, `harness.composition`, `harness.readers`,
`harness.rules`.
"""
