"""The one reading of a truth word ("yes", "off", "t", ...), as oslo.utils' strutils reads
it for Nova: every query parameter, flavor field and PCI spec that takes a boolean."""

from __future__ import annotations

import re

TRUE_WORDS = ("1", "t", "true", "on", "y", "yes")
FALSE_WORDS = ("0", "f", "false", "off", "n", "no")
WORDS = TRUE_WORDS + FALSE_WORDS


def parse_bool(value: object) -> bool | None:
    """True or False for a truth word (any case, surrounding blanks ignored); None for
    anything else, so each caller answers an unknown word in its own API's terms."""
    word = str(value).strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    return None


def sanitize_hostname(name: str) -> str:
    """A display name made a hostname as Nova makes it (RFC 952/1123 letters, lower case,
    at most the 63 characters dnsmasq takes); empty when nothing usable is left."""
    name = name.encode("latin-1", "ignore").decode("latin-1")[:63]
    name = re.sub(r"[ _.]", "-", name)
    name = re.sub(r"[^\w.-]+", "", name)
    return name.lower().strip(".-")
