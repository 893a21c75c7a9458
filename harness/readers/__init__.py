"""Readers of what the program runs, without running it: launch scripts (`bash`, with tree-sitter-bash) and Python
sources (`pysource`, with `ast`): entry points, `@hydra.main` arguments, `_target_` classes and their defaults.

Owns: static reading under the gates' bounds. May import: `harness.gates`, `harness.model`.
"""
