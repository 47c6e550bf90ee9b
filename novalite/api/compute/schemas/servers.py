"""POST /servers body at 2.1 (Nova's schema, the parts the base version accepts)."""

_name = {"type": "string", "minLength": 1, "maxLength": 255,
         "pattern": r"^(?! )[^\x00-\x1f]*(?<! )$"}
_uuid_or_href = {"type": "string", "maxLength": 2048}
_positive_int = {"type": ["integer", "string"], "pattern": "^[0-9]*$", "minimum": 1,
                 "minLength": 1}
_metadata = {"type": "object",
             "patternProperties": {"^[a-zA-Z0-9-_:. ]{1,255}$":
                                   {"type": "string", "maxLength": 255}},
             "additionalProperties": False}
_bdm_v2 = {"type": "object", "properties": {
    "uuid": {"type": "string"}, "boot_index": {"type": ["integer", "string", "null"]},
    "source_type": {"type": "string", "enum": ["volume", "image", "snapshot", "blank"]},
    "destination_type": {"type": "string", "enum": ["local", "volume"]},
    "delete_on_termination": {"type": ["boolean", "string"]},
    "volume_size": {"type": ["integer", "string", "null"]},
    "device_name": {"type": "string"}, "guest_format": {"type": "string"},
    "disk_bus": {"type": "string"}, "device_type": {"type": "string"},
}, "additionalProperties": False}

create = {
    "type": "object",
    "properties": {
        "server": {
            "type": "object",
            "properties": {
                "name": _name,
                "imageRef": {"anyOf": [_uuid_or_href, {"type": "string", "maxLength": 0}]},
                "flavorRef": {"type": ["string", "integer"], "minLength": 1},
                "adminPass": {"type": "string"},
                "metadata": _metadata,
                "networks": {"type": "array", "items": {"type": "object"}},
                "min_count": _positive_int,
                "max_count": _positive_int,
                "return_reservation_id": {"type": ["boolean", "string"]},
                "availability_zone": {"type": "string", "minLength": 1, "maxLength": 255},
                "key_name": {"type": "string", "minLength": 1, "maxLength": 255},
                "user_data": {"type": "string", "maxLength": 65535},
                "security_groups": {"type": "array",
                                    "items": {"type": "object",
                                              "properties": {"name": {"type": "string"}}}},
                "block_device_mapping_v2": {"type": "array", "items": _bdm_v2},
                "config_drive": {"type": ["boolean", "string"]},
                "accessIPv4": {"type": "string", "format": "ipv4"},
                "accessIPv6": {"type": "string", "format": "ipv6"},
                "OS-DCF:diskConfig": {"type": "string", "enum": ["AUTO", "MANUAL"]},
            },
            "required": ["name", "flavorRef"],
            "additionalProperties": False,
        },
        "os:scheduler_hints": {"type": "object"},
        "OS-SCH-HNT:scheduler_hints": {"type": "object"},
    },
    "required": ["server"],
    "additionalProperties": False,
}
