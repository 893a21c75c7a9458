"""Composition: every case composed with Hydra's real compose API, rendered to its golden text, resolved and traced
to the file that sets each value; the content caches and the worker pool.

`hydra_compat` is the quarantine: the one module that touches Hydra's and OmegaConf's private names.
Owns: Hydra sessions, the resolver policy, caches. May import: `harness.gates`, `harness.model`.
"""
