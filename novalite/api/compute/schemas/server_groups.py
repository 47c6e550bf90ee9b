"""POST /os-server-groups bodies by microversion, and the list query: Nova's schemas.

Before 2.64 a group has a one-item `policies` list (soft policies from 2.15); from 2.64 a
`policy` string and `rules` ({"max_server_per_host": N}). Nova's validator also applies
`minimum` to numeric strings; novalite's does not, so the handler re-checks
max_server_per_host given as a string.
"""

from __future__ import annotations

import copy
from typing import Any

_name = {"type": "string", "format": "name", "minLength": 1, "maxLength": 255}
_positive_integer = {"type": ["integer", "string"], "pattern": "^[0-9]*$", "minimum": 1,
                     "minLength": 1}
HARD_POLICIES = ["anti-affinity", "affinity"]
SOFT_POLICIES = ["soft-anti-affinity", "soft-affinity"]

create: dict[str, Any] = {
    "type": "object",
    "properties": {
        "server_group": {
            "type": "object",
            "properties": {
                "name": _name,
                # one item, one of the policies (a string from 2.64)
                "policies": {
                    "type": "array",
                    "items": [{"type": "string", "enum": list(HARD_POLICIES)}],
                    "uniqueItems": True,
                    "minItems": 1,
                    "maxItems": 1,
                    "additionalItems": False,
                },
            },
            "required": ["name", "policies"],
            "additionalProperties": False,
        },
    },
    "required": ["server_group"],
    "additionalProperties": False,
}

create_v215 = copy.deepcopy(create)
create_v215["properties"]["server_group"]["properties"]["policies"]["items"][0][
    "enum"].extend(SOFT_POLICIES)

create_v264 = copy.deepcopy(create_v215)
_group = create_v264["properties"]["server_group"]
del _group["properties"]["policies"]
_group["required"] = ["name", "policy"]
_group["properties"]["policy"] = {"type": "string", "enum": HARD_POLICIES + SOFT_POLICIES}
_group["properties"]["rules"] = {
    "type": "object",
    "properties": {"max_server_per_host": _positive_integer},
    "additionalProperties": False,
}


def create_for(version: tuple[int, int]) -> dict:
    if version >= (2, 64):
        return create_v264
    return create_v215 if version >= (2, 15) else create
