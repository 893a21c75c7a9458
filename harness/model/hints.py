"""Our words for a mistake: the closest existing name ("did you mean"), found by difflib."""

from __future__ import annotations

import difflib
from collections.abc import Collection, Iterable
from types import MappingProxyType

from harness.gates import linear


def did_you_mean(wrong: str, known: Iterable[str]) -> str:
    """`; did you mean 'x'?` for the closest known name, or "" when nothing is close."""
    close = difflib.get_close_matches(wrong, sorted(set(known)), n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


def first_sentence(text: str, limit: int = 160) -> str:
    """Hydra's message shortened to its first sentence (it ends at '. ': quoted names hold dots), at most `limit` characters."""
    text = " ".join(text.split())
    match = linear.compile(r"\.(\s)").search(text)
    text = text[: match.start(1)] if match else text
    return text if len(text) <= limit else text[: limit - 1] + "…"


def case_hint(pattern: str, case_ids: Iterable[str]) -> str:
    """`; did you mean '*/megatron/*'?` for a case glob that matches nothing: each literal segment is replaced by
    the closest segment at its place among the case ids, so a typo inside a glob is found too."""
    ids = [case_id.split("/") for case_id in case_ids]
    parts = pattern.split("/")
    fixed = []
    for index, part in enumerate(parts):
        known = {segments[index] for segments in ids if len(segments) > index}
        if any(char in part for char in "*?[") or part in known:
            fixed.append(part)
        else:
            close = difflib.get_close_matches(part, sorted(known), n=1, cutoff=0.6)
            fixed.append(close[0] if close else part)
    suggestion = "/".join(fixed)
    return f"; did you mean {suggestion!r}?" if suggestion != pattern else did_you_mean(pattern, ["/".join(s) for s in ids])


def key_paths(tree: object) -> list[str]:
    """Every dotted path of a plain tree, leaves and the mappings above them, for key hints."""
    from harness.model.semantic_diff import iter_leaves, join_path, split_path

    paths = set()
    for leaf, _ in iter_leaves(tree):
        prefix = ""
        for key in split_path(leaf):
            prefix = join_path(prefix, key)
            paths.add(prefix)
    return sorted(paths)


def key_hint(wrong: str, paths: Collection[str]) -> str:
    """`did_you_mean` for a dotted key: among the keys beside it when its parent exists (a typo in its last part; a
    config holds a thousand keys, and comparing with each costs 50 ms), else among them all."""
    parent, _, last = wrong.rpartition(".")
    if not parent or parent not in paths:
        return did_you_mean(wrong, paths)
    # The last parts compared, not the whole paths: beside a long shared prefix any two keys look alike.
    close = difflib.get_close_matches(
        last, sorted({p.rpartition(".")[2] for p in paths if p.rpartition(".")[0] == parent}), n=1, cutoff=0.6
    )
    return f"; did you mean {parent + '.' + close[0]!r}?" if close else ""


_MISSING_OPTION = linear.compile(
    r"Could not (?:find|load) '(?P<group>[^']+)/(?P<option>[^'/]+)'\.? Available options in '[^']+': (?P<options>.*)$"
)
_MISSING_KEY = linear.compile(
    r"Could not override '(?P<key>[^']+)'\. To append to your config use \+(?P<given>.*)\n?$"
)  # `\n?`: where `re`'s `$` stood too


def option_hint(message: str) -> str | None:
    """Hydra's "Could not find 'group/optin' Available options in 'group': a b" in our words, or None."""
    found = _MISSING_OPTION.search(message)
    if found is None:
        return None
    options = found["options"].split()
    where = message[: found.start()].strip()
    plugin = plugin_hint(found["group"], found["option"])
    if plugin:
        return f"{where + ' ' if where else ''}{found['option']!r} is not an option of {found['group']}: {plugin}"
    return (
        f"{where + ' ' if where else ''}{found['option']!r} is not an option of {found['group']}"
        f"{did_you_mean(found['option'], options)} (options: {', '.join(options)})"
    )


# Options of Hydra's own groups that only a plugin package provides (its configs come with it): what to install.
PLUGIN_OPTIONS = MappingProxyType(
    {
        **{(group, "colorlog"): "hydra-colorlog" for group in ("hydra/job_logging", "hydra/hydra_logging")},
        **{("hydra/launcher", name): "hydra-submitit-launcher" for name in ("submitit_local", "submitit_slurm")},
        ("hydra/launcher", "joblib"): "hydra-joblib-launcher",
        ("hydra/launcher", "ray"): "hydra-ray-launcher",
        ("hydra/launcher", "ray_aws"): "hydra-ray-launcher",
        ("hydra/launcher", "rq"): "hydra-rq-launcher",
        ("hydra/sweeper", "optuna"): "hydra-optuna-sweeper",
        ("hydra/sweeper", "ax"): "hydra-ax-sweeper",
        ("hydra/sweeper", "nevergrad"): "hydra-nevergrad-sweeper",
    }
)
PLUGIN_GROUPS = MappingProxyType({"hydra/sweeper/sampler": "hydra-optuna-sweeper"})


def plugin_hint(group: str, option: str) -> str:
    """`it comes from the Hydra plugin hydra-colorlog (...)` for an option (or a group) only a plugin provides, else ""."""
    package = PLUGIN_OPTIONS.get((group, option)) or PLUGIN_GROUPS.get(group)
    if package is None:
        return ""
    return f"it comes from the Hydra plugin {package} (install it beside config-harness)"


def override_hint(message: str, tree: object) -> str | None:
    """Hydra's "Could not override 'a.b'. To append to your config use +a.b=1" in our words, with the closest key
    of the config the override was applied to, or None for another message."""
    found = _MISSING_KEY.search(message)
    key = found["key"] if found else ""
    if found is None or not found["given"].startswith(key + "="):  # `+KEY=`, the same key (RE2 has no `(?P=key)`)
        return None
    value = found["given"][len(key) + 1 :]
    close = did_you_mean(key, key_paths(tree))
    advice = close or f"; to add a new key, write +{key}={value}"
    return f"override {key}={value}: the config has no key {key}{advice}"
