"""The values a run passes along: settings, the matrix of cases, differences of trees, findings and how they
group into causes and tiers, and the hints that name a likely fix.

Owns: frozen values and the pure functions on them. May import: `harness.gates`. Knows nothing of Hydra's
internals, git, scripts or reports.
"""
