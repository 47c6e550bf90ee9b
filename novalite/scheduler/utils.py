"""Small helpers Nova's filters and weighers share (nova/scheduler/utils.py)."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Iterable
from typing import Any

LOG = logging.getLogger(__name__)


def parse_options(opts: Iterable[str], sep: str = "=", converter: Callable = str,
                  name: str = "") -> tuple[tuple[str, Any], ...]:
    """'key<sep>value' items as (key, converted value) pairs; bad items are logged and
    left out, as Nova does (e.g. [metrics] weight_setting = 'cpu.percent=-1.0')."""
    return _parse(tuple(opts), sep, converter, name)


@functools.lru_cache(maxsize=64)
def _parse(opts: tuple[str, ...], sep: str, converter: Callable,
           name: str) -> tuple[tuple[str, Any], ...]:
    good, bad = [], []
    for opt in opts:
        key, seen, value = opt.partition(sep)
        try:
            converted = converter(value)
        except ValueError:
            converted = None
        if key and seen and converted is not None:
            good.append((key, converted))
        else:
            bad.append(opt)
    if bad:
        LOG.warning("Ignoring the invalid elements of the option %s: %s", name, ", ".join(bad))
    return tuple(good)
