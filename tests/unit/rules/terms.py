"""What the rule kinds' unit tests share: a contract's violations on a config, and the contract changes between
two versions of one contracts file."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from omegaconf import OmegaConf

from harness.model.findings import Finding
from harness.rules.contract_changes import contract_changes, read_contract_files
from harness.rules.contracts import parse_contracts, violations
from harness.rules.protocol import ProgramLookup, Violation


def violated(text: str, config: Any, program: ProgramLookup | None = None, case_id: str | None = None) -> list[Violation]:
    """The violations of the one contract in `text` (a contracts file, dedented) on a plain config."""
    (contract,) = parse_contracts(textwrap.dedent(text), Path("c.yaml")).contracts
    return violations(contract, OmegaConf.create(config), config, program, case_id)


def changed(base: str, head: str, cases: Sequence[str] = ("a",)) -> list[Finding]:
    """The contract changes from `base` to `head` (two texts of c.yaml, dedented) over the review's case ids."""
    return contract_changes(
        read_contract_files({"c.yaml": textwrap.dedent(base)}), read_contract_files({"c.yaml": textwrap.dedent(head)}), list(cases)
    )
