"""Versioned dataclass objects with a name registry, so RPC can rebuild them by name.

An object's VERSION says which fields it carries. A receiver rebuilding an object ignores
fields it does not know (sent by a newer peer) and leaves fields it knows but did not get
at their defaults (sent by an older peer), which is what rolling upgrades need.
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar, TypeVar, dataclass_transform

T = TypeVar("T")
Obj = TypeVar("Obj", bound="NovaliteObject")

_registry: dict[str, type[NovaliteObject]] = {}
_field_names: dict[type, tuple[str, ...]] = {}


def field_names(cls: type) -> tuple[str, ...]:
    """The dataclass's field names, read once per class: dataclasses.fields builds its
    tuple on each call, and RPC's codec asks for every object it encodes or decodes."""
    names = _field_names.get(cls)
    if names is None:
        names = _field_names[cls] = tuple(f.name for f in dataclasses.fields(cls))
    return names


@dataclass_transform()
def register(cls: type[Obj]) -> type[Obj]:
    """Class decorator: make `cls` a dataclass known to the RPC serializer by its name."""
    cls = dataclasses.dataclass(cls)
    _registry[cls.__name__] = cls
    return cls


def lookup(name: str) -> type[NovaliteObject]:
    try:
        return _registry[name]
    except KeyError:
        raise ValueError(f"Unknown object type '{name}' in RPC payload") from None


class NovaliteObject:
    """Mixin for registered objects: field access helpers shared by all."""

    VERSION: ClassVar[str] = "1.0"

    def fields(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in field_names(type(self))}

    @classmethod
    def from_fields(cls: type[T], data: dict[str, Any]) -> T:
        return cls(**{name: data[name] for name in field_names(cls) if name in data})
