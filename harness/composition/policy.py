"""The one resolver policy: every OmegaConf resolution the harness causes runs under it.

A pull request controls configs and presets, and CI runs with secrets in the environment. So while the harness
composes (Hydra applies overrides, value-only presets included), checks contracts, compares effective values
or reads the `hydra:` subtree, every resolver that could reach the host (`oc.env`, `oc.decode`, Hydra's
`hydra:` and `now`, any custom resolver a schema module registered) returns its own text instead of running:
`${oc.env:GITHUB_TOKEN}` stays `${oc.env:GITHUB_TOKEN}` in every message, golden and report. Only resolvers
that read nothing but the config itself run. Every harness Session holds the policy while it is open, so both
shells get it the same way (a CLI command and each engine use of the pytest plugin run in one); library entry
points (`resolve`, a composition) hold it again around each resolution, for callers outside any session and for
resolvers a schema module registers while a session is open.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from harness.composition import hydra_compat

# Resolvers whose result depends on the config alone: they run. Everything else is opaque.
PURE_RESOLVERS = frozenset({"oc.select", "oc.create", "oc.deprecated", "oc.dict.keys", "oc.dict.values"})
# Host lookups that are opaque even where nothing registered them (so they read as text, not as an error).
HOST_RESOLVERS = ("oc.env", "env", "oc.decode", "now", "hydra", "python_version")


def _opaque(name: str) -> Callable[..., str]:
    def keep_text(config: Any, parent: Any, node: Any, args: Any, args_str: tuple[str, ...]) -> str:
        return "${" + name + ":" + ",".join(args_str) + "}"

    return keep_text


@contextmanager
def resolution_policy() -> Iterator[None]:
    """While active, every resolver but the pure ones returns its own text (nested uses are cheap and safe)."""
    table = hydra_compat.resolver_table()
    names = {name for name in table if name not in PURE_RESOLVERS} | set(HOST_RESOLVERS)
    with hydra_compat.resolvers_replaced({name: _opaque(name) for name in names}):
        yield
