"""Reading request bodies, with Keystone's 400 texts for what is missing or mistyped."""

from __future__ import annotations

from typing import Any, Literal, overload

from novalite.identity import exception


def member(body: Any, key: str, target: str = "request body") -> dict:
    """body[key], which must be an object."""
    if not isinstance(body, dict) or not isinstance(body.get(key), dict):
        raise exception.ValidationError(attribute=key, target=target)
    return body[key]


@overload
def string(ref: dict, key: str, target: str, required: Literal[True] = True,
           max_length: int = 255) -> str: ...


@overload
def string(ref: dict, key: str, target: str, required: bool,
           max_length: int = 255) -> str | None: ...


def string(ref: dict, key: str, target: str, required: bool = True,
           max_length: int = 255) -> str | None:
    value = ref.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value.strip() or len(value) > max_length:
        raise exception.ValidationError(attribute=key, target=target)
    return value


def text(ref: dict, key: str, target: str) -> str:
    """A free-text field such as a description: any string, empty when absent."""
    value = ref.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise exception.ValidationError(attribute=key, target=target)
    return value


def boolean(ref: dict, key: str, target: str) -> bool | None:
    value = ref.get(key)
    if value is not None and not isinstance(value, bool):
        raise exception.ValidationError(attribute=key, target=target)
    return value


def changes(ref: dict, target: str, strings: tuple[str, ...], booleans: tuple[str, ...] = (
        "enabled",)) -> dict:
    """The updatable fields present in a PATCH body, checked."""
    found: dict = {}
    for key in strings:
        if key in ref:
            found[key] = string(ref, key, target, required=key == "name")
    for key in booleans:
        if key in ref:
            found[key] = boolean(ref, key, target)
    return found


def query_bool(value: str | None) -> bool | None:
    """Keystone's query booleans: absent is None; '0', 'false', 'no' are False."""
    if value is None:
        return None
    return value.lower() not in ("0", "false", "no", "off")
