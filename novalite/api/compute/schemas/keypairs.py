"""POST /os-keypairs body, per microversion: 2.2 adds `type`, 2.10 `user_id`; from 2.92
a public key is required (Nova no longer generates pairs) and names may hold '@' and '.'."""

import copy
from typing import Any

_name = {"allOf": [
    {"type": "string", "minLength": 1, "maxLength": 255, "format": "name"},
    {"type": "string", "pattern": r"^[_\- a-zA-Z0-9]+$", "minLength": 1, "maxLength": 255},
]}

_name_v292 = {"allOf": [
    {"type": "string", "minLength": 1, "maxLength": 255, "format": "name"},
    {"type": "string", "pattern": r"^[_\-\@\. a-zA-Z0-9]+$", "minLength": 1,
     "maxLength": 255},
]}

create: dict[str, Any] = {
    "type": "object",
    "properties": {
        "keypair": {
            "type": "object",
            "properties": {
                "name": _name,
                "public_key": {"type": "string"},
            },
            "required": ["name"],
            "additionalProperties": False,
        },
    },
    "required": ["keypair"],
    "additionalProperties": False,
}


def create_for(version: tuple[int, int]) -> dict:
    body = copy.deepcopy(create)
    keypair = body["properties"]["keypair"]["properties"]
    if version >= (2, 2):
        keypair["type"] = {"type": "string", "enum": ["ssh", "x509"]}
    if version >= (2, 10):
        keypair["user_id"] = {"type": "string"}
    if version >= (2, 92):
        keypair["name"] = _name_v292
        body["properties"]["keypair"]["required"] = ["name", "public_key"]
    return body
