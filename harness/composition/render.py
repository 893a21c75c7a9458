"""Render a composed config to golden text, and read golden text back, deterministically."""

from __future__ import annotations

from typing import Any

import yaml
from omegaconf import DictConfig, OmegaConf

from harness.composition.hydra_compat import omegaconf_yaml_resolvers, plain_tree, reads_as_other_type
from harness.composition.session import current
from harness.gates.budget import MAX_DEPTH, MAX_EXPANDED_CHARS, MAX_EXPANDED_NODES, InputLimitError
from harness.model.matrix import Case
from harness.model.semantic_diff import join_path, path_segment, split_path

HEADER_MARK = "# config-harness golden"

# Bounds for hostile input (a pull request controls configs and goldens): their values and reasons are in harness.gates.budget.

_BaseDumper = getattr(yaml, "CDumper", yaml.Dumper)
_BaseLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class GoldenDumper(_BaseDumper):  # type: ignore[misc,valid-type]
    """OmegaConf's dumper rules on libyaml's emitter: strings that look like other types are quoted."""


def _represent_str(dumper: yaml.Dumper, data: str) -> yaml.Node:
    quoted = reads_as_other_type(data)
    return dumper.represent_scalar(yaml.resolver.BaseResolver.DEFAULT_SCALAR_TAG, data, style="'" if quoted else None)


GoldenDumper.add_representer(str, _represent_str)


class CircularAlias(InputLimitError):
    """A YAML alias inside the node it refers to (`a: &x [*x]`): a value without end."""


def expanded_size(root: yaml.Node, limit: int = MAX_EXPANDED_NODES, char_limit: int = MAX_EXPANDED_CHARS) -> tuple[int, int, int]:
    """How many nodes, how many characters of scalar text and how many levels of nesting a YAML node graph holds
    once every alias is expanded; the counts stop past their limits. CircularAlias for an alias inside its anchor.

    Aliases share node objects, so each distinct node is sized once: linear in the document, however far it expands.
    """
    sizes: dict[int, tuple[int, int, int]] = {}
    open_nodes: set[int] = set()  # on the current path: meeting one again is a cycle
    pending: list[tuple[yaml.Node, bool]] = [(root, False)]
    while pending:
        node, children_done = pending.pop()
        if id(node) in sizes:
            continue
        children = (
            [part for pair in node.value for part in pair]
            if isinstance(node, yaml.MappingNode)
            else (node.value if isinstance(node, yaml.SequenceNode) else [])
        )
        if children_done:
            open_nodes.discard(id(node))
            parts = [sizes[id(child)] for child in children]
            text = len(node.value) if isinstance(node, yaml.ScalarNode) else 0
            sizes[id(node)] = (
                min(limit + 1, 1 + sum(nodes for nodes, _, _ in parts)),
                min(char_limit + 1, text + sum(chars for _, chars, _ in parts)),
                1 + max((depth for _, _, depth in parts), default=0) if children else 0,
            )
            continue
        if id(node) in open_nodes:
            raise CircularAlias(
                f"line {node.start_mark.line + 1}: a YAML alias refers to a node that holds it (a value without end); refused"
            )
        open_nodes.add(id(node))
        pending.append((node, True))
        pending.extend((child, False) for child in children if id(child) not in sizes)
    return sizes[id(root)]


class GoldenLoader(_BaseLoader):  # type: ignore[misc,valid-type]
    """A safe loader (never constructs Python objects) that reads YAML exactly as OmegaConf's loader does,
    on libyaml's parser: the same scalar resolvers and the same refusal of duplicate keys, and a bound on
    how far aliases may expand."""

    yaml_implicit_resolvers = omegaconf_yaml_resolvers()

    def construct_document(self, node: yaml.Node) -> Any:
        nodes, chars, depth = expanded_size(node)
        if depth > MAX_DEPTH:
            raise InputLimitError(f"nests {depth} levels deep (more than {MAX_DEPTH}); refused")
        if nodes > MAX_EXPANDED_NODES:
            raise InputLimitError(f"expands to more than {MAX_EXPANDED_NODES:,} values through YAML aliases (&anchor/*alias); refused")
        if chars > MAX_EXPANDED_CHARS:
            raise InputLimitError(
                f"expands to more than {MAX_EXPANDED_CHARS // (1024 * 1024)} MiB of text through YAML aliases (&anchor/*alias); refused"
            )
        return super().construct_document(node)

    def construct_yaml_int(self, node: yaml.ScalarNode) -> Any:
        # Python turns at most 4,300 digits into an int (a guard against quadratic parsing): past it, a one-line
        # YAML error at the node, never a ValueError that reads as a bug.
        try:
            return super().construct_yaml_int(node)
        except ValueError:
            raise yaml.constructor.ConstructorError(
                None, None, f"an integer of {len(node.value):,} digits is too long", node.start_mark
            ) from None

    def construct_mapping(self, node: yaml.Node, deep: bool = False) -> Any:
        # As omegaconf._utils.get_yaml_loader: a repeated plain key is an error, not "the last one wins".
        seen = set()
        for key_node, _ in node.value:
            if key_node.tag != yaml.resolver.BaseResolver.DEFAULT_SCALAR_TAG:
                continue
            if key_node.value in seen:
                raise yaml.constructor.ConstructorError(
                    "while constructing a mapping",
                    node.start_mark,
                    f"found duplicate key {key_node.value}",
                    key_node.start_mark,
                )
            seen.add(key_node.value)
        return super().construct_mapping(node, deep=deep)


GoldenLoader.add_constructor("tag:yaml.org,2002:int", GoldenLoader.construct_yaml_int)

# OmegaConf's loader differs from YAML 1.1 in floats ("1e-6") and timestamps (kept as strings); copy its resolvers.


def to_plain(config: DictConfig) -> Any:
    """The unresolved plain-Python tree of a config: interpolations stay as written."""
    return plain_tree(config)  # OmegaConf.to_container(config, resolve=False, enum_to_str=True), faster


def _key_order(key: Any) -> tuple[Any, ...]:
    # Strings first, in their own order; other keys (1, 2.5, true) by type, then value. PyYAML's sort_keys gives
    # up silently on a mapping that mixes the two, which would leave the golden in composition order.
    return (0, key) if isinstance(key, str) else (1, type(key).__name__, key)


def sorted_tree(tree: Any) -> Any:
    """A plain tree with every mapping's keys in one total order, whatever their types."""
    if isinstance(tree, dict):
        return {key: sorted_tree(tree[key]) for key in sorted(tree, key=_key_order)}
    if isinstance(tree, list):
        return [sorted_tree(item) for item in tree]
    return tree


def _yaml_dump(tree: Any) -> str:
    return yaml.dump(tree, Dumper=GoldenDumper, default_flow_style=False, allow_unicode=True, sort_keys=False)


def dump_yaml(tree: Any) -> str:
    """Dump a plain tree with sorted keys, so a reordered defaults list cannot change a byte."""
    text = _BlockWriter().document(tree)
    return _yaml_dump(sorted_tree(tree)) if text is None else text


class _Unsafe(Exception):
    """A value whose text depends on where the emitter puts it (a long string it may fold, a complex key)."""


class _Folded(_Unsafe):
    """A scalar the emitter may fold or write on several lines: its text depends on its column and indentation."""


_WIDTH = 80  # PyYAML's default best_width: plain and single-quoted scalars fold at a space past it


class _BlockWriter:
    """The golden's YAML as PyYAML's emitter writes it (block style, indent 2, sequences in mappings not indented,
    width 80), with each scalar's text taken from the real emitter once and reused.

    Rendering every node through PyYAML's representer was a third of a cold check. The layout here is only the
    block structure; every scalar's text comes from the emitter itself, and anything whose text could depend on its
    column or context (a string the emitter may fold, a multi-line scalar, a key too long to be simple) makes
    `document` return None, and the caller dumps the whole tree with PyYAML. tests/unit/composition/test_render.py
    holds the two equal on generated trees."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def document(self, tree: Any) -> str | None:
        if not isinstance(tree, dict) or not tree:
            return None
        try:
            self.mapping(tree, 0, "")
        except (_Unsafe, RecursionError):
            return None
        return "".join(self.lines)

    def mapping(self, tree: dict[Any, Any], indent: int, first: str) -> None:
        # `first` replaces the indentation of the first line: "- " when the mapping is an item of a sequence.
        pad = " " * indent
        lead = first or pad
        for key in sorted(tree, key=_key_order):
            value = tree[key]
            head = f"{lead}{_key_text(key)}:"
            lead_of_head, lead = lead, pad
            if isinstance(value, dict):
                if value:
                    self.lines.append(head + "\n")
                    self.mapping(value, indent + 2, "")
                else:
                    self.lines.append(head + " {}\n")
            elif isinstance(value, list):
                if value:
                    self.lines.append(head + "\n")
                    self.sequence(value, indent, "")
                else:
                    self.lines.append(head + " []\n")
            else:
                try:
                    self.lines.append(f"{head} {_scalar_text(value, len(head) + 1)}\n")
                except _Folded:
                    self.lines.append(lead_of_head + _entry_text(key, value, indent)[indent:])

    def sequence(self, items: list[Any], indent: int, first: str) -> None:
        pad = " " * indent
        lead = first or pad
        for item in items:
            if isinstance(item, dict) and item:
                self.mapping(item, indent + 2, lead + "- ")
            elif isinstance(item, list) and item:
                self.sequence(item, indent + 2, lead + "- ")
            elif isinstance(item, dict | list):
                self.lines.append(f"{lead}- {'{}' if isinstance(item, dict) else '[]'}\n")
            else:
                self.lines.append(f"{lead}- {_scalar_text(item, len(lead) + 2)}\n")
            lead = pad


def _memo_key(value: Any) -> tuple[type, Any]:
    # By type (True == 1 == 1.0) and, for floats, by text (0.0 == -0.0 but they are written apart).
    return (float, repr(value)) if type(value) is float else (type(value), value)


def _scalar_text(value: Any, column: int) -> str:
    if type(value) not in (str, int, float, bool, type(None)):
        raise _Unsafe
    # The text of each scalar as the emitter writes it after `k: `, kept for the session: equal values of one type
    # always read the same, and a check runs a few thousand distinct scalars through the emitter, not millions.
    memo = ("scalar", *_memo_key(value))
    known = current().rendered
    text = known.get(memo)
    if text is None:
        text = known[memo] = _yaml_dump({"k": value})[3:-1]
    # One line, and no fold the emitter could make at this column: plain and single-quoted text folds only at a
    # space past the width, double-quoted text anywhere.
    if len(text.splitlines()) != 1 or (column + len(text) > _WIDTH - 2 and (" " in text or text.startswith('"'))):
        raise _Folded
    return text


def _entry_text(key: Any, value: Any, indent: int) -> str:
    """The lines of `key: value` in a mapping at `indent`, for a value the emitter may fold: written by the emitter
    inside mappings nested to the same indentation, where its column and indentation are the same as in the golden."""
    memo = ("entry", indent, *_memo_key(key), *_memo_key(value))
    known = current().rendered
    text = known.get(memo)
    if text is None:
        nested: Any = {key: value}
        for _ in range(indent // 2):
            nested = {"a": nested}
        text = known[memo] = _yaml_dump(nested).split("\n", indent // 2)[-1]
    return text


def _key_text(key: Any) -> str:
    if type(key) not in (str, int, float, bool, type(None)):
        raise _Unsafe
    memo = ("key", *_memo_key(key))
    known = current().rendered
    text = known.get(memo)
    if text is None:
        dumped = _yaml_dump({key: 0})
        if not dumped.endswith(": 0\n") or dumped.startswith("? ") or len(dumped.splitlines()) != 1:
            raise _Unsafe
        text = known[memo] = dumped[: -len(": 0\n")]
    return text


def header(case: Case) -> str:
    """The golden's comment header: how it was made and that it must not be edited."""
    overrides = " ".join(case.overrides) if case.overrides else "(none)"
    version_base = f" version_base={case.version_base}" if case.version_base is not None else ""
    return (
        f"{HEADER_MARK} for case {case.id}\n"
        f"# Composed with Hydra: config_name={case.config_name}{version_base} overrides: {overrides}\n"
        "# Unresolved, keys sorted. Do not edit: regenerate with `config-harness generate`.\n"
    )


def golden_body(text: str) -> str:
    """Golden text without its leading comment header: two goldens with the same body say the same thing."""
    lines = text.splitlines(keepends=True)
    start = 0
    while start < len(lines) and lines[start].startswith("#"):
        start += 1
    return "".join(lines[start:])


def render_golden(case: Case, config: DictConfig, tree: Any = None, provenance: str = "") -> str:
    """The full golden text for a composed case (`tree` is `to_plain(config)` when the caller has it); `provenance`
    is the header lines that record where its values came from (harness.composition.provenance)."""
    return header(case) + provenance + dump_yaml(to_plain(config) if tree is None else tree)


def load_config_text(text: str) -> DictConfig | Any:
    """A config file's text as OmegaConf.create(text) builds it, parsed by libyaml (several times faster)."""
    loaded = yaml.load(text, Loader=GoldenLoader)
    if loaded is None:
        loaded = {}
    elif isinstance(loaded, str):
        loaded = {loaded: None}  # OmegaConf's own reading of a bare string document
    return OmegaConf.create(loaded)


def parse_yaml(text: str) -> Any:
    """Load YAML text safely; an empty document is an empty mapping."""
    tree = yaml.load(text, Loader=GoldenLoader)
    return {} if tree is None else tree


def key_lines(text: str) -> dict[str, int]:
    """The 1-based line of every mapping key in YAML text, by dotted path; {} when the text is not YAML."""
    lines: dict[str, int] = {}
    try:
        root = yaml.compose(text, Loader=_BaseLoader)
    except yaml.YAMLError:
        return lines
    pending = [("", root)]
    seen: set[int] = set()
    while pending:
        prefix, node = pending.pop()
        if id(node) in seen:  # an alias: its lines are those of its anchor, and expanding it could explode
            continue
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            for key_node, value_node in node.value:
                path = join_path(prefix, key_node.value)
                lines[path] = key_node.start_mark.line + 1
                pending.append((path, value_node))
    return lines


def line_of(lines: dict[str, int], path: str) -> int | None:
    """The line of `path`, or of its nearest ancestor that has one."""
    keys = split_path(path)
    while keys:
        candidate = ".".join(path_segment(key) for key in keys)
        if candidate in lines:
            return lines[candidate]
        keys.pop()
    return None
