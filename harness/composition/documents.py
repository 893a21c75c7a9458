"""The YAML documents `diff OLD NEW` compares as they are (never composed): two files, or the same-named YAML
files of two folders, each read through the one bounded reader.

Two files were named on the command line (trusted); the files inside a named folder were not, so none of them
may lead out of that folder's project. A document is a mapping that OmegaConf can hold, as every config is;
anything else is bad input (one line, exit 2), never a silent "no change".
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from omegaconf import DictConfig, OmegaConf

from harness.composition.render import parse_yaml
from harness.gates.confine import Scope, project_root
from harness.gates.errors import BadInput, describe_yaml_error
from harness.gates.reader import InputLimitError, read_text
from harness.model.matrix import is_golden_name


class DocumentError(BadInput):
    """A document that cannot be compared (missing, not UTF-8, not YAML, not a config); the message names it."""


@dataclass(frozen=True)
class Document:
    """One side of a comparison: where it is (as shown), its text (for line numbers), its tree and that tree as
    OmegaConf holds it (where interpolations resolve)."""

    display: str
    text: str
    tree: dict[Any, Any]
    config: DictConfig


@dataclass(frozen=True)
class DocumentPair:
    """Two versions of one document; a side is None when only the other folder has the file."""

    name: str  # the id reports use: the new file as named, or the file's name inside two folders
    old: Document | None
    new: Document | None


def read_document(path: Path, scope: Scope | None = None) -> Document:
    """A YAML file as a document; DocumentError when it cannot be read, parsed or held as a config."""
    try:
        text = read_text(path, scope)
    except FileNotFoundError:
        raise DocumentError(f"{path}: no such file") from None
    except UnicodeDecodeError as error:
        raise DocumentError(f"{path}: not UTF-8 (offset {error.start})") from None
    except InputLimitError as error:  # it names the file
        raise DocumentError(str(error)) from None
    try:
        tree = parse_yaml(text)
    except yaml.YAMLError as error:
        raise DocumentError(describe_yaml_error(error, str(path))) from None
    if not isinstance(tree, dict):
        raise DocumentError(f"{path}: a {type(tree).__name__} at the top, not a mapping: diff compares configs")
    try:
        config = OmegaConf.create(tree)
    except Exception as error:  # OmegaConf's errors for unsupported keys and values share no base class
        reason = str(error).split("\n")[0]
        raise DocumentError(f"{path}: not a config OmegaConf can hold ({reason})") from None
    return Document(str(path), text, tree, config)


def file_pair(old: Path, new: Path) -> list[DocumentPair]:
    """Two YAML files named on the command line: one pair, named after the new file."""
    return [DocumentPair(str(new), read_document(old), read_document(new))]


def folder_pairs(old: Path, new: Path) -> list[DocumentPair]:
    """The YAML files at the top of two folders, paired by name; a file only one folder has is paired with None."""
    listed = {folder: {path.name for path in folder.glob("*.yaml")} for folder in (old, new)}
    scopes = {folder: (project_root(folder),) for folder in (old, new)}

    def side(folder: Path, name: str) -> Document | None:
        return read_document(folder / name, scopes[folder]) if name in listed[folder] else None

    return [DocumentPair(name, side(old, name), side(new, name)) for name in sorted(listed[old] | listed[new])]


def is_snapshot_folder(folder: Path) -> bool:
    """True when every YAML file at the top of the folder is a golden (`_generated_*.yaml`), and it has one."""
    names = [path.name for path in folder.glob("*.yaml")]
    return bool(names) and all(is_golden_name(name) for name in names)
