"""The gates every untrusted byte passes: bounded reads (`reader`, `budget`), the project scope a path must stay in
(`confine`), the only writer of files (`writer`), and escaping of text for a terminal or a report (`escape`).

Owns: limits and refusals. May import: the standard library and the `harness` root only; every other layer
imports this one.
"""
