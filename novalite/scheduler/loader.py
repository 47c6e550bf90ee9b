"""Loading filters and weighers the way Nova's options name them.

`available_filters` lists dotted paths, each a filter class or a function returning
classes; `enabled_filters` picks among them by class name, in order. `weight_classes`
lists dotted paths the same way. Names Nova's own nova.conf uses for the built-in sets
(`nova.scheduler.filters.all_filters`, `nova.scheduler.weights.all_weighers`) mean ours,
so an operator's configuration works as written. A name that cannot be found stops the
service at start-up, saying which.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from novalite import exception
from novalite.conf import CONF
from novalite.scheduler import filters, weighers

_ALIASES: dict[str, Callable[[], list[type]]] = {
    "nova.scheduler.filters.all_filters": filters.all_filters,
    "novalite.scheduler.filters.all_filters": filters.all_filters,
    "nova.scheduler.weights.all_weighers": weighers.all_weighers,
    "novalite.scheduler.weighers.all_weighers": weighers.all_weighers,
}


def _resolve(path: str, base: type, option: str) -> list[type]:
    if path in _ALIASES:
        return _ALIASES[path]()
    module_name, _, attr = path.rpartition(".")
    try:
        found = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError, ValueError) as exc:
        raise exception.ConfigInvalid(
            reason=f"{option} names '{path}', which cannot be imported: {exc}") from None
    try:
        classes = [found] if isinstance(found, type) else list(found())
    except Exception as exc:  # noqa: BLE001 (whatever it is, it is not a class list)
        raise exception.ConfigInvalid(
            reason=f"{option} names '{path}', which is neither a class nor a function "
            f"returning classes: {exc}") from None
    for cls in classes:
        if not (isinstance(cls, type) and issubclass(cls, base)):
            raise exception.ConfigInvalid(
                reason=f"{option} names '{path}', which is not a {base.__name__} subclass")
    return classes


def load_filters() -> list[filters.BaseHostFilter]:
    available: dict[str, type] = {}
    for path in CONF.filter_scheduler.available_filters:
        for cls in _resolve(path, filters.BaseHostFilter,
                            "[filter_scheduler] available_filters"):
            available[cls.__name__] = cls
    missing = [n for n in CONF.filter_scheduler.enabled_filters if n not in available]
    if missing:
        raise exception.ConfigInvalid(
            reason=f"[filter_scheduler] enabled_filters names {', '.join(missing)}, not among "
            f"the available filters ({', '.join(sorted(available))}); add its module to "
            f"[filter_scheduler] available_filters")
    return [available[n]() for n in CONF.filter_scheduler.enabled_filters]


def load_weighers() -> list[weighers.BaseHostWeigher]:
    classes: dict[str, type] = {}
    for path in CONF.filter_scheduler.weight_classes:
        for cls in _resolve(path, weighers.BaseHostWeigher,
                            "[filter_scheduler] weight_classes"):
            classes.setdefault(cls.__name__, cls)
    return [cls() for cls in classes.values()]
