"""Bodies of resize, migrate, confirmResize and revertResize, as Nova validates them."""

from novalite.api.compute.schemas.server_actions import _any_value

resize = {
    "type": "object",
    "properties": {
        "resize": {
            "type": "object",
            "properties": {
                "flavorRef": {"type": ["string", "integer"], "minLength": 1},
                "OS-DCF:diskConfig": {"type": "string", "enum": ["AUTO", "MANUAL"]},
            },
            "required": ["flavorRef"],
            "additionalProperties": False,
        },
    },
    "required": ["resize"],
    "additionalProperties": False,
}

migrate = {
    "type": "object",
    "properties": {"migrate": {"type": "null"}},
    "required": ["migrate"],
    "additionalProperties": False,
}

# 2.56: an admin may name the destination host.
migrate_v2_56 = {
    "type": "object",
    "properties": {
        "migrate": {
            "type": ["object", "null"],
            "properties": {
                "host": {"type": ["string", "null"], "minLength": 1, "maxLength": 255},
            },
            "additionalProperties": False,
        },
    },
    "required": ["migrate"],
    "additionalProperties": False,
}

confirm_resize = _any_value("confirmResize")
revert_resize = _any_value("revertResize")
