"""MAC addresses for ports: `base_mac`'s fixed octets, random ones where it says 00, as
Neutron does. Uniqueness per network is the database's (ports' unique constraint); a clash
retries the request (network.transaction)."""

from __future__ import annotations

import random

from novalite.conf import CONF


def generate() -> str:
    octets = CONF.base_mac.lower().split(":")
    return ":".join(o if o != "00" else f"{random.randint(0, 255):02x}" for o in octets)


def valid(mac: str) -> bool:
    parts = mac.split(":")
    if len(parts) != 6 or not all(len(p) == 2 for p in parts):
        return False
    try:
        first = int(parts[0], 16)
        [int(p, 16) for p in parts]
    except ValueError:
        return False
    return not first & 1 and mac != "00:00:00:00:00:00"  # unicast only
