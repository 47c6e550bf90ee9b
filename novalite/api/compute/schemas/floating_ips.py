"""Bodies of Nova's floating IP proxy (its schemas/floating_ips.py): an allocation may
name a pool or send no body at all; the server actions name an address."""

from __future__ import annotations

from novalite.api.compute.schemas.server_networks import ip_address

create = {
    "type": ["object", "null"],
    "properties": {"pool": {"type": ["string", "null"]}},
}

add_floating_ip = {
    "type": "object",
    "properties": {"addFloatingIp": {
        "type": "object",
        "properties": {"address": ip_address, "fixed_address": ip_address},
        "required": ["address"], "additionalProperties": False}},
    "required": ["addFloatingIp"], "additionalProperties": False,
}

remove_floating_ip = {
    "type": "object",
    "properties": {"removeFloatingIp": {
        "type": "object", "properties": {"address": ip_address},
        "required": ["address"], "additionalProperties": False}},
    "required": ["removeFloatingIp"], "additionalProperties": False,
}
