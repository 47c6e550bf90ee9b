"""Bodies of os-interface attach and the multinic and security group actions, as Nova's
schemas (attach_interfaces.py, multinic.py, security_groups.py) take them."""

from __future__ import annotations

import copy
from typing import Any

_uuid = {"type": "string", "format": "uuid"}
# Nova's parameter_types.ip_address
ip_address = {"type": "string", "oneOf": [{"format": "ipv4"}, {"format": "ipv6"}]}

attach: dict[str, Any] = {
    "type": "object",
    "properties": {"interfaceAttachment": {
        "type": "object",
        "properties": {
            "net_id": _uuid, "port_id": _uuid,
            "fixed_ips": {"type": "array", "minItems": 1, "maxItems": 1, "items": {
                "type": "object", "properties": {"ip_address": ip_address},
                "required": ["ip_address"], "additionalProperties": False}},
        },
        "additionalProperties": False}},
    "additionalProperties": False,
}
_tag = {"type": "string", "pattern": "^[^,/]*$", "minLength": 1, "maxLength": 60}


def attach_for(version: tuple[int, int]) -> dict:
    """The attach body at `version`: a device tag for the new NIC from 2.49."""
    body = copy.deepcopy(attach)
    if version >= (2, 49):
        body["properties"]["interfaceAttachment"]["properties"]["tag"] = _tag
    return body

def security_group_action(name: str) -> dict:
    return {"type": "object",
            "properties": {name: {
                "type": "object",
                "properties": {"name": {"type": "string", "minLength": 1, "maxLength": 255}},
                "required": ["name"], "additionalProperties": False}},
            "required": [name], "additionalProperties": False}

add_fixed_ip = {
    "type": "object",
    "properties": {"addFixedIp": {
        "type": "object",
        "properties": {"networkId": {"type": ["string", "number"], "minLength": 1,
                                     "maxLength": 255,
                                     "pattern": "^(?! )[a-zA-Z0-9. _-]+(?<! )$"}},
        "required": ["networkId"], "additionalProperties": False}},
    "required": ["addFixedIp"], "additionalProperties": False,
}

remove_fixed_ip = {
    "type": "object",
    "properties": {"removeFixedIp": {
        "type": "object", "properties": {"address": ip_address},
        "required": ["address"], "additionalProperties": False}},
    "required": ["removeFixedIp"], "additionalProperties": False,
}
