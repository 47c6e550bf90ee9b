"""Bodies of os-volume_attachments attach and update, per microversion, as Nova's
schemas (volume_attachments.py) take them: 2.49 adds `tag`, 2.79
`delete_on_termination`; from 2.85 an update may restate what the attachment shows and
change `delete_on_termination`."""

from __future__ import annotations

from typing import Any

_uuid = {"type": "string", "format": "uuid"}
# nova/block_device.py's match_device
_device = {"type": ["string", "null"],
           "pattern": "(^/dev/x{0,1}[a-z]{0,1}d{0,1})([a-z]+)[0-9]*$"}
_tag = {"type": "string", "pattern": "^[^,/]*$", "minLength": 1, "maxLength": 60}
_boolean = {"type": ["boolean", "string"], "enum": [
    True, "True", "TRUE", "true", "1", "ON", "On", "on", "YES", "Yes", "yes",
    False, "False", "FALSE", "false", "0", "OFF", "Off", "off", "NO", "No", "no"]}


def _body(properties: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"volumeAttachment": {
            "type": "object", "properties": properties, "required": ["volumeId"],
            "additionalProperties": False}},
        "required": ["volumeAttachment"],
        "additionalProperties": False,
    }


def create_for(version: tuple[int, int]) -> dict[str, Any]:
    properties: dict[str, Any] = {"volumeId": _uuid, "device": _device}
    if version >= (2, 49):
        properties["tag"] = _tag
    if version >= (2, 79):
        properties["delete_on_termination"] = _boolean
    return _body(properties)


def update_for(version: tuple[int, int]) -> dict[str, Any]:
    if version < (2, 85):
        return _body({"volumeId": _uuid})
    return _body({"volumeId": _uuid, "device": _device, "tag": _tag,
                  "delete_on_termination": _boolean, "serverId": _uuid, "id": _uuid})
