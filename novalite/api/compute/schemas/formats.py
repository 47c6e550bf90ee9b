"""Nova's name formats for JSON schemas (`"format": "name"` and kin), with its message.

A name is printable characters (Unicode letters, marks, numbers, punctuation, symbols
and spaces, within the Basic Multilingual Plane, as Nova's regex spans); `name` and
`az_name` may not start or end with whitespace; `az_name` excludes ':'; the
`..._with_leading_trailing_spaces` forms (which the handler strips) need one
non-space character.
"""

from __future__ import annotations

import ipaddress
import unicodedata

import jsonschema
from oslo_utils import uuidutils

# Nova's parameter_types.boolean: what oslo's bool_from_string takes strictly.
BOOLEAN = {"type": ["boolean", "string"], "enum": [
    True, "True", "TRUE", "true", "1", "ON", "On", "on", "YES", "Yes", "yes",
    False, "False", "FALSE", "false", "0", "OFF", "Off", "off", "NO", "No", "no"]}


class InvalidName(ValueError):
    def __init__(self, reason: str) -> None:
        super().__init__(f"An invalid 'name' value was provided. The name must be: {reason}")


CHECKER = jsonschema.FormatChecker(formats=())


def _printable(char: str) -> bool:
    category = unicodedata.category(char)
    return ord(char) < 0xFFFF and not category.startswith("C") and \
        (not category.startswith("Z") or category == "Zs")


def _solid(char: str) -> bool:
    return _printable(char) and unicodedata.category(char) != "Zs"


def _valid(value: str, exclude: str, trimmed: bool) -> bool:
    if not all(_printable(c) and c not in exclude for c in value):
        return False
    if trimmed:  # the empty string is minLength's to refuse
        return not value or (_solid(value[0]) and _solid(value[-1]))
    return any(_solid(c) for c in value)


def _register(name: str, exclude: str, trimmed: bool, reason: str) -> None:
    @CHECKER.checks(name, raises=InvalidName)
    def check(value: object) -> bool:  # a non-string is the "type" keyword's to refuse
        if not isinstance(value, str) or _valid(value, exclude, trimmed):
            return True
        raise InvalidName(reason)


_register("name", "", True, "printable characters. Can not start or end with whitespace.")
_register("az_name", ":", True,
          "printable characters except :.Can not start or end with whitespace.")
_register("name_with_leading_trailing_spaces", "", False,
          "printable characters with at least one non space character")
_register("az_name_with_leading_trailing_spaces", ":", False,
          "printable characters except :, with at least one non space character")


def _ip_checker(name: str, parse: type) -> None:
    @CHECKER.checks(name, raises=ValueError)
    def check(value: object) -> bool:  # a non-string is the "type" keyword's to refuse
        if isinstance(value, str):
            parse(value)
        return True


_ip_checker("ipv4", ipaddress.IPv4Address)
_ip_checker("ipv6", ipaddress.IPv6Address)


@CHECKER.checks("uuid", raises=ValueError)
def _uuid(value: object) -> bool:
    """Nova's (oslo's is_uuid_like): a uuid, dashes optional; a non-string is the "type"
    keyword's to refuse."""
    return not isinstance(value, str) or uuidutils.is_uuid_like(value)
