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


def migrate_live_for(version: tuple[int, int]) -> dict:
    """os-migrateLive: `block_migration` and, until 2.25, `disk_over_commit` required;
    from 2.25 `block_migration` may be "auto"; `force` from 2.30 until 2.68."""
    host = {"type": ["string", "null"], "minLength": 1, "maxLength": 255}
    boolean = {"type": ["boolean", "string"],
               "enum": [True, False, "True", "False", "true", "false", "1", "0"]}
    properties: dict = {"host": host, "block_migration": boolean,
                        "disk_over_commit": boolean}
    required = ["block_migration", "disk_over_commit", "host"]
    if version >= (2, 25):
        properties = {"host": host, "block_migration": {"oneOf": [
            boolean, {"type": "string", "enum": ["auto"]}]}}
        required = ["block_migration", "host"]
    if (2, 30) <= version < (2, 68):
        properties["force"] = boolean
    return {"type": "object",
            "properties": {"os-migrateLive": {"type": "object", "properties": properties,
                                              "required": required,
                                              "additionalProperties": False}},
            "required": ["os-migrateLive"], "additionalProperties": False}


def evacuate_for(version: tuple[int, int]) -> dict:
    """evacuate: `onSharedStorage` required until 2.14; `force` from 2.29 until 2.68."""
    properties: dict = {"host": {"type": "string", "minLength": 1, "maxLength": 255,
                                 "pattern": "^[a-zA-Z0-9-._]*$"},
                        "adminPass": {"type": "string"}}
    required: list[str] = []
    if version < (2, 14):
        properties["onSharedStorage"] = {"type": ["boolean", "string"]}
        required = ["onSharedStorage"]
    if (2, 29) <= version < (2, 68):
        properties["force"] = {"type": ["boolean", "string"]}
    return {"type": "object",
            "properties": {"evacuate": {"type": "object", "properties": properties,
                                        "required": required,
                                        "additionalProperties": False}},
            "required": ["evacuate"], "additionalProperties": False}

# POST /servers/{id}/migrations/{id}/action (2.22)
force_complete = {
    "type": "object",
    "properties": {"force_complete": {"type": "null"}},
    "required": ["force_complete"],
    "additionalProperties": False,
}
