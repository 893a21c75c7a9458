"""Rules: contracts (`contracts`), how a pull request changes them (`contract_changes`, `review_rules`), known
findings (`known`), `lock`, and the rule kinds of a contract, one module each, behind one protocol
(harness/rules/protocol.py).

Owns: what must hold and what excuses a finding. May import: `harness.gates`, `harness.model`,
`harness.composition`, `harness.readers`.

`KINDS` is the one registry: parsing (harness/rules/contracts.py), evaluation, contract changes
(harness/rules/contract_changes.py) and `lock` (harness/rules/derive.py) all iterate it, in this order, which is also the order
of their findings. A new kind is a module with a `KIND`, imported and listed here (harness/rules/one_of.py was
added so).
"""

from __future__ import annotations

from types import MappingProxyType

from harness.rules import agree, equal, forbid, one_of, program_view, require, scope
from harness.rules.protocol import RuleKind

KINDS: tuple[RuleKind, ...] = (
    scope.KIND,
    require.KIND,
    equal.KIND,
    forbid.KIND,
    agree.KIND,
    agree.REQUIRE_BOTH,
    program_view.KIND,
    one_of.KIND,
)

BY_KEY = MappingProxyType({kind.key: kind for kind in KINDS})

__all__ = ["BY_KEY", "KINDS", "RuleKind"]
