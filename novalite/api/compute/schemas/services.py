"""PUT /os-services bodies: before 2.53 the action is in the path and host/binary in the
body (2.11 adds `forced_down`); from 2.53 the service's uuid is in the path."""

import copy
from typing import Any

_reason = {"type": "string", "minLength": 1, "maxLength": 255}
_boolean = {"type": ["boolean", "string"],
            "enum": [True, "True", "TRUE", "true", "1", "ON", "On", "on", "YES", "Yes",
                     "yes", False, "False", "FALSE", "false", "0", "OFF", "Off", "off",
                     "NO", "No", "no"]}

update: dict[str, Any] = {
    "type": "object",
    "properties": {
        "host": {"type": "string", "minLength": 1, "maxLength": 255,
                 "pattern": "^[a-zA-Z0-9-._]*$"},
        "binary": {"type": "string", "minLength": 1, "maxLength": 255},
        "disabled_reason": _reason,
    },
    "required": ["host", "binary"],
    "additionalProperties": False,
}

update_v211 = copy.deepcopy(update)
update_v211["properties"]["forced_down"] = _boolean

update_v253 = {
    "type": "object",
    "properties": {
        "status": {"type": "string", "enum": ["enabled", "disabled"]},
        "disabled_reason": _reason,
        "forced_down": _boolean,
    },
    "additionalProperties": False,
}


def update_for(version: tuple[int, int]) -> dict:
    if version >= (2, 53):
        return update_v253
    return update_v211 if version >= (2, 11) else update
