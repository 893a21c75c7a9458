"""Bash integer arithmetic (`$((...))`, `((...))`) over an expression's text, with bash's own precedence.

tree-sitter-bash's tree of an arithmetic expression does not follow bash's precedence (`-1+Y` is read `-(1+Y)`,
`3%2*5` is `3%(2*5)`, `2**3**2` is `(2**3)**2`), so the script reader evaluates the text (its expansions already
substituted) with this small parser instead. Anything not followed here (a variable whose value is an expression,
`base#n`, an array element, a syntax bash refuses) makes the value unknown: `evaluate` returns None, never a guess.
"""

from __future__ import annotations

from collections.abc import Callable
from types import MappingProxyType
from typing import Any

from harness.gates import linear
from harness.gates.budget import ARITHMETIC_BITS, wrap_int

_TOKEN = linear.compile(
    r"\s*(0[xX][0-9a-fA-F]+|\d+|[A-Za-z_]\w*|<<=|>>=|\*\*|\+\+|--|<=|>=|==|!=|&&|\|\||[-+*/%&^|]=|<<|>>|[-+*/%<>=!~&^|?:(),])"
)
# Binary operators: (binding power, right-associative). Assignments bind loosest but the comma.
_BINARY = MappingProxyType(
    {
        ",": (1, False),
        "?": (3, True),
        "||": (4, False),
        "&&": (5, False),
        "|": (6, False),
        "^": (7, False),
        "&": (8, False),
        "==": (9, False),
        "!=": (9, False),
        "<": (10, False),
        ">": (10, False),
        "<=": (10, False),
        ">=": (10, False),
        "<<": (11, False),
        ">>": (11, False),
        "+": (12, False),
        "-": (12, False),
        "*": (13, False),
        "/": (13, False),
        "%": (13, False),
        "**": (14, True),
    }
)
_ASSIGNMENT = frozenset({"=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "^=", "|="})
MAX_DEPTH = 8  # a variable naming a variable naming ...: followed this deep
_UNARY_POWER = 15  # `-`, `+`, `!`, `~` bind tighter than `**`: `-2**2` is 4
Node = tuple[Any, ...]


def _tokens(text: str) -> list[str]:
    # One pass of the engine: the tokens run on while each starts where the one before ended.
    tokens, position = [], 0
    for match in _TOKEN.finditer(text):
        if match.start() != position:
            break
        tokens.append(match.group(1))
        position = match.end()
    if text[position:].strip():
        raise ValueError(text[position:])
    return tokens


class _Parser:
    def __init__(self, tokens: list[str]) -> None:
        self.tokens, self.position = tokens, 0

    def peek(self) -> str:
        return self.tokens[self.position] if self.position < len(self.tokens) else ""

    def take(self, expected: str = "") -> str:
        token = self.peek()
        if not token or (expected and token != expected):
            raise ValueError(f"expected {expected or 'more'}")
        self.position += 1
        return token

    def expression(self, power: int = 0) -> Node:
        left = self.operand()
        while True:
            operator = self.peek()
            if operator in _ASSIGNMENT and power <= 2:
                if left[0] != "var":
                    raise ValueError("an assignment to something else than a variable")
                self.take()
                left = ("assign", operator, left[1], self.expression(2))
                continue
            if operator not in _BINARY or _BINARY[operator][0] < power:
                return left
            self.take()
            strength, right_associative = _BINARY[operator]
            if operator == "?":
                middle = self.expression(0)
                self.take(":")
                left = ("?", left, middle, self.expression(strength))
            else:
                left = (operator, left, self.expression(strength if right_associative else strength + 1))

    def operand(self) -> Node:
        token = self.take()
        if token == "(":
            inner = self.expression(0)
            self.take(")")
            return inner
        if token in ("++", "--"):
            name = self.take()
            if not name.isidentifier():
                raise ValueError("++ or -- before something else than a variable")
            return ("pre", token, name)
        if token in ("-", "+", "!", "~"):
            return ("unary", token, self.expression(_UNARY_POWER))
        if token[0].isdigit():
            return ("num", _number(token))
        if token.isidentifier():
            if self.peek() in ("++", "--"):
                return ("post", self.take(), token)
            return ("var", token)
        raise ValueError(token)


def _number(text: str) -> int:
    if text[:2] in ("0x", "0X"):
        return wrap_int(int(text, 16))
    if text.startswith("0") and text != "0":
        return wrap_int(int(text, 8))  # `08` is refused by bash as by int(): ValueError
    return wrap_int(int(text))


def _binary(operator: str, left: int, right: int) -> int:
    """Bash's 64-bit integer result of `left OPERATOR right` (C's division: truncated toward zero, never a float)."""
    if operator in ("/", "%"):
        quotient = abs(left) // abs(right) * (1 if (left < 0) == (right < 0) else -1)  # ZeroDivisionError as bash fails
        return wrap_int(quotient if operator == "/" else left - right * quotient)
    if operator == "**":  # bash refuses a negative exponent; a big one wraps as the 64-bit product does
        if right < 0:
            raise ValueError("a negative exponent")
        return wrap_int(pow(left, right, 1 << ARITHMETIC_BITS))
    if operator in ("<<", ">>"):
        shift = right % ARITHMETIC_BITS
        return wrap_int(left << shift if operator == "<<" else left >> shift)
    operations: dict[str, Callable[[int, int], int]] = {
        "+": lambda a, b: a + b,
        "-": lambda a, b: a - b,
        "*": lambda a, b: a * b,
        "<": lambda a, b: int(a < b),
        ">": lambda a, b: int(a > b),
        "<=": lambda a, b: int(a <= b),
        ">=": lambda a, b: int(a >= b),
        "==": lambda a, b: int(a == b),
        "!=": lambda a, b: int(a != b),
        "&": lambda a, b: a & b,
        "^": lambda a, b: a ^ b,
        "|": lambda a, b: a | b,
    }
    return wrap_int(operations[operator](left, right))


def evaluate(text: str, read: Callable[[str], str | None], write: Callable[[str, int], None]) -> int | None:
    """The value of an arithmetic expression as bash computes it; None when it is not known. `read(name)` gives a
    variable's text (None when it is not known; "" when unset), `write(name, value)` assigns as bash would (only the
    parts bash evaluates: `&&`, `||` and `?:` skip the others)."""

    def value_of(name: str, depth: int = 0) -> int:
        text = read(name)
        if text is None:
            raise ValueError(name)
        text = text.strip()
        if not text:
            return 0
        if linear.compile(r"[-+]?(0[xX][0-9a-fA-F]+|\d+)").fullmatch(text):
            sign = -1 if text.startswith("-") else 1
            return wrap_int(sign * _number(text.lstrip("+-")))
        if depth >= MAX_DEPTH or not linear.compile(r"[A-Za-z_]\w*").fullmatch(text):
            raise ValueError(f"{name} holds an expression")  # bash evaluates it in turn: only a name is followed
        return value_of(text, depth + 1)

    def run(node: Node) -> int:
        kind = node[0]
        if kind == "num":
            return int(node[1])
        if kind == "var":
            return value_of(node[1])
        if kind in ("pre", "post"):
            before = value_of(node[2])
            after = wrap_int(before + (1 if node[1] == "++" else -1))
            write(node[2], after)
            return after if kind == "pre" else before
        if kind == "unary":
            operand = run(node[2])
            return {"-": wrap_int(-operand), "+": operand, "!": int(not operand), "~": wrap_int(~operand)}[node[1]]
        if kind == "assign":
            value = run(node[3])
            if node[1] != "=":
                value = _binary(node[1][:-1], value_of(node[2]), value)
            write(node[2], value)
            return value
        if kind == "?":
            return run(node[2]) if run(node[1]) else run(node[3])
        if kind == "&&":
            return int(bool(run(node[1])) and bool(run(node[2])))
        if kind == "||":
            return int(bool(run(node[1])) or bool(run(node[2])))
        if kind == ",":
            run(node[1])
            return run(node[2])
        return _binary(kind, run(node[1]), run(node[2]))

    try:
        parser = _Parser(_tokens(text))
        tree = parser.expression(0)
        if parser.peek():
            return None
        return run(tree)
    except (ArithmeticError, ValueError, RecursionError, KeyError):  # ValueError: refused by bash, or not followed
        return None
