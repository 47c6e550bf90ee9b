"""Nova's extra-spec comparison language, as flavor extra specs and aggregate metadata use it.

`req` is either a plain value (string equality) or `<op> operand`:
  =  (numeric >=), ==, !=, >=, <= (numeric); s==, s!=, s<, s<=, s>, s>= (string);
  <in> (substring), <all-in> (every word present), <or> a <or> b (any of).
"""

from __future__ import annotations

import operator
from collections.abc import Callable


def _numeric(compare: Callable[[float, float], bool]) -> Callable[[str, str], bool]:
    def method(value: str, operand: str) -> bool:
        try:
            return compare(float(value), float(operand))
        except ValueError:
            return False  # a non-number never satisfies a numeric comparison

    return method


_METHODS: dict[str, Callable] = {
    "=": _numeric(operator.ge),
    "==": _numeric(operator.eq),
    "!=": _numeric(operator.ne),
    ">=": _numeric(operator.ge),
    "<=": _numeric(operator.le),
    "s==": operator.eq,
    "s!=": operator.ne,
    "s<": operator.lt,
    "s<=": operator.le,
    "s>": operator.gt,
    "s>=": operator.ge,
    "<in>": lambda value, operand: operand in value,
    "<all-in>": lambda value, words: all(word in value for word in words),
}


def match(value: str | None, req: str) -> bool:
    words = req.split()
    op = words.pop(0) if words else None
    if op != "<or>" and op not in _METHODS:
        return value == req
    if value is None:
        return False
    if op == "<or>":  # <or> a <or> b: every other word is an alternative
        return value in words[::2]
    if not words:
        return False
    return _METHODS[op](value, words if op == "<all-in>" else words[0])
