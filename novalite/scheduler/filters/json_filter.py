"""JsonFilter: the `query` hint, a JSON prefix expression over host state attributes.

Example: ["and", [">=", "$free_ram_mb", 1024], [">=", "$free_disk_mb", 204800]].
Operators: = < > <= >= in not or and; `$name.key` reads an attribute (and dict keys).
"""

from __future__ import annotations

import json
import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from novalite.objects.request_spec import RequestSpec
from novalite.scheduler.filters import BaseHostFilter
from novalite.scheduler.host_state import HostState
from novalite.scheduler.host_table import HostTable


def _compare(op: Callable[[Any, Any], bool]) -> Callable[[list], bool]:
    def method(args: list) -> bool:
        return len(args) >= 2 and all(op(args[0], other) for other in args[1:])

    return method


_COMMANDS: dict[str, Callable[[list], Any]] = {
    "=": _compare(operator.eq),
    "<": _compare(operator.lt),
    ">": _compare(operator.gt),
    "<=": _compare(operator.le),
    ">=": _compare(operator.ge),
    "in": lambda args: len(args) >= 2 and args[0] in args[1:],
    "not": lambda args: [not arg for arg in args],
    "or": lambda args: True in args,
    "and": lambda args: False not in args,
}


def _value(text: str, host_state: Any) -> Any:
    if not text.startswith("$"):
        return text
    path = text[1:].split(".")
    value = getattr(host_state, path[0], None)
    for key in path[1:]:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def evaluate(query: list, host_state: Any) -> Any:
    if not query:
        return True
    command = _COMMANDS.get(query[0])
    if command is None:
        raise ValueError(f"unknown JsonFilter operator {query[0]!r}")
    args = []
    for arg in query[1:]:
        if isinstance(arg, list):
            arg = evaluate(arg, host_state)
        elif isinstance(arg, str):
            arg = _value(arg, host_state)
        if arg is not None:
            args.append(arg)
    return command(args)


class JsonFilter(BaseHostFilter):
    run_filter_once_per_request = True

    def host_passes(self, host_state: HostState, spec: RequestSpec) -> bool:
        query = spec.get_scheduler_hint("query")
        if not query:
            return True
        try:
            result = evaluate(json.loads(query) if isinstance(query, str) else query,
                              host_state)
        except (ValueError, TypeError):
            return False  # a malformed query matches no host
        return bool(any(result) if isinstance(result, list) else result)

    def filter_array(self, table: HostTable, rows: np.ndarray,
                     spec: RequestSpec) -> np.ndarray | None:
        if spec.get_scheduler_hint("query"):
            return None
        return np.ones(len(rows), dtype=bool)
