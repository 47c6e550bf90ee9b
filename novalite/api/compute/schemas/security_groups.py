"""Bodies of Nova's os-security-groups and os-security-group-rules proxies."""

from __future__ import annotations

_text = {"type": "string", "maxLength": 255}
_port = {"type": ["integer", "string", "null"]}

group = {
    "type": "object",
    "properties": {"security_group": {
        "type": "object",
        "properties": {"name": _text, "description": _text},
        "required": ["name", "description"], "additionalProperties": False}},
    "required": ["security_group"], "additionalProperties": False,
}

rule = {
    "type": "object",
    "properties": {"security_group_rule": {
        "type": "object",
        "properties": {
            "parent_group_id": {"type": "string"},
            "ip_protocol": {"type": ["string", "null"]},
            "from_port": _port, "to_port": _port,
            "cidr": {"type": ["string", "null"]},
            "group_id": {"type": ["string", "null"]},
        },
        "required": ["parent_group_id"], "additionalProperties": False}},
    "required": ["security_group_rule"], "additionalProperties": False,
}
