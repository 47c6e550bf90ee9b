"""JSON schemas of the block storage request bodies, as Cinder's (cinder/api/schemas),
less the fields novalite does not (yet) honour: a request giving one (a snapshot or an
image to create from, a group, scheduler hints) is refused with a 400 that names it
("Additional properties are not allowed"), never quietly ignored."""

from __future__ import annotations

from typing import Any

_NAME = {"type": ["string", "null"], "minLength": 0, "maxLength": 255}
METADATA = {"type": "object", "patternProperties": {
    "^[a-zA-Z0-9-_:. /]{1,255}$": {"type": "string", "maxLength": 255}},
    "additionalProperties": False}
_SIZE = {"type": ["integer", "string"], "pattern": "^[0-9]+$", "minimum": 1,
         "maximum": 2147483647}

CREATE_VOLUME = {
    "type": "object",
    "properties": {
        "volume": {
            "type": "object",
            "properties": {
                "name": _NAME, "description": _NAME,
                "display_name": _NAME, "display_description": _NAME,
                "size": _SIZE,
                "availability_zone": _NAME,
                "volume_type": {"type": ["string", "null"], "maxLength": 255},
                "metadata": METADATA,
                "bootable": {"type": "boolean"},
                "multiattach": {"type": ["boolean", "string"]},  # false only: volumes.py
                "snapshot_id": {"type": "string", "maxLength": 36},
                "source_volid": {"type": "string", "maxLength": 36},
                "imageRef": {"type": "string", "maxLength": 36},
                "image_id": {"type": "string", "maxLength": 36},
            },
            "additionalProperties": False,
        },
    },
    "required": ["volume"],
    "additionalProperties": False,
}

CREATE_SNAPSHOT = {
    "type": "object",
    "properties": {
        "snapshot": {
            "type": "object",
            "properties": {
                "name": _NAME, "description": _NAME, "display_name": _NAME,
                "display_description": _NAME,
                "volume_id": {"type": "string", "maxLength": 36},
                "force": {"type": ["boolean", "string"]},
                "metadata": METADATA,
            },
            "required": ["volume_id"],
            "additionalProperties": False,
        },
    },
    "required": ["snapshot"],
    "additionalProperties": False,
}

UPDATE_SNAPSHOT = {
    "type": "object",
    "properties": {
        "snapshot": {
            "type": "object",
            "properties": {"name": _NAME, "description": _NAME, "display_name": _NAME,
                           "display_description": _NAME},
            "additionalProperties": False,
        },
    },
    "required": ["snapshot"],
    "additionalProperties": False,
}

UPDATE_SNAPSHOT_STATUS = {
    "type": "object",
    "properties": {
        "os-update_snapshot_status": {
            "type": "object",
            "properties": {"status": {"type": "string"}, "progress": {"type": "string"}},
            "required": ["status"],
            "additionalProperties": False,
        },
    },
    "required": ["os-update_snapshot_status"],
    "additionalProperties": False,
}

EXTEND = {
    "type": "object",
    "properties": {
        "os-extend": {
            "type": "object",
            "properties": {"new_size": _SIZE},
            "required": ["new_size"],
            "additionalProperties": False,
        },
    },
    "required": ["os-extend"],
    "additionalProperties": False,
}

SET_BOOTABLE = {
    "type": "object",
    "properties": {
        "os-set_bootable": {
            "type": "object",
            "properties": {"bootable": {"type": ["boolean", "string"]}},
            "required": ["bootable"],
            "additionalProperties": False,
        },
    },
    "required": ["os-set_bootable"],
    "additionalProperties": False,
}

_BOOL = {"type": ["boolean", "string"],
         "enum": [True, False, "true", "false", "True", "False", "1", "0", "yes", "no",
                  "on", "off", "t", "f", "y", "n"]}


def upload_image(version: tuple[int, int]) -> dict[str, Any]:
    """os-volume_upload_image's body (Cinder's schema): visibility and protected from
    3.1."""
    properties: dict[str, Any] = {
        "image_name": {"type": "string", "minLength": 1, "maxLength": 255},
        "force": _BOOL,
        "disk_format": {"type": "string", "enum": ["raw", "vmdk", "vdi", "qcow2", "vhd",
                                                   "vhdx", "ploop"]},
        "container_format": {"type": "string", "enum": ["bare"]}}
    if version >= (3, 1):
        properties["visibility"] = {"type": "string",
                                    "enum": ["community", "public", "private", "shared"]}
        properties["protected"] = _BOOL
    return {"type": "object",
            "properties": {"os-volume_upload_image": {
                "type": "object", "properties": properties, "required": ["image_name"],
                "additionalProperties": False}},
            "required": ["os-volume_upload_image"], "additionalProperties": False}


UPDATE_VOLUME = {
    "type": "object",
    "properties": {
        "volume": {
            "type": "object",
            "properties": {"name": _NAME, "description": _NAME, "display_name": _NAME,
                           "display_description": _NAME, "metadata": METADATA},
            "additionalProperties": False,
        },
    },
    "required": ["volume"],
    "additionalProperties": False,
}

CREATE_TYPE = {
    "type": "object",
    "properties": {
        "volume_type": {
            "type": "object",
            "properties": {
                "name": {"type": "string", "minLength": 1, "maxLength": 255},
                "description": _NAME,
                "os-volume-type-access:is_public": {"type": ["boolean", "string"]},
                "extra_specs": METADATA,
            },
            "required": ["name"],
            "additionalProperties": False,
        },
    },
    "required": ["volume_type"],
    "additionalProperties": False,
}

UPDATE_TYPE = {
    "type": "object",
    "properties": {
        "volume_type": {
            "type": "object",
            "properties": {
                "name": {"type": ["string", "null"], "minLength": 1, "maxLength": 255},
                "description": _NAME,
                "is_public": {"type": ["boolean", "string"]},
            },
            "additionalProperties": False,
        },
    },
    "required": ["volume_type"],
    "additionalProperties": False,
}

EXTRA_SPECS = {
    "type": "object",
    "properties": {"extra_specs": METADATA},
    "required": ["extra_specs"],
    "additionalProperties": False,
}

_LIMIT = {"type": ["integer", "string"], "pattern": "^-?[0-9]+$", "minimum": -1,
          "maximum": 2147483647}

UPDATE_QUOTA = {
    "type": "object",
    "properties": {
        "quota_set": {
            "type": "object",
            "properties": {"volumes": _LIMIT, "snapshots": _LIMIT, "gigabytes": _LIMIT},
            "additionalProperties": False,
        },
    },
    "required": ["quota_set"],
    "additionalProperties": False,
}


def given(body: Any) -> Any:
    """The body less its fields given as null, at both levels: a client sends null for
    what its user left out, which Cinder treats as absent."""
    if not isinstance(body, dict):
        return body
    return {key: {k: v for k, v in value.items() if v is not None}
            if isinstance(value, dict) else value
            for key, value in body.items() if value is not None}

_UUID = {"type": "string", "format": "uuid"}
_ATTACHMENT = {"instance_uuid": _UUID, "connector": {"type": ["object", "null"]},
               "volume_uuid": _UUID}


def _create_attachment(properties: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "attachment": {
                "type": "object",
                "properties": properties,
                "required": ["volume_uuid"],
                "additionalProperties": False,
            },
        },
        "required": ["attachment"],
        "additionalProperties": False,
    }


CREATE_ATTACHMENT = _create_attachment(_ATTACHMENT)
# 3.54: the attach mode
CREATE_ATTACHMENT_V354 = _create_attachment(
    {**_ATTACHMENT, "mode": {"type": "string", "enum": ["rw", "ro"]}})

UPDATE_ATTACHMENT = {
    "type": "object",
    "properties": {
        "attachment": {
            "type": "object",
            "properties": {"connector": {"type": "object", "minProperties": 1}},
            "required": ["connector"],
            "additionalProperties": False,
        },
    },
    "required": ["attachment"],
    "additionalProperties": False,
}

COMPLETE_ATTACHMENT = {
    "type": "object",
    "properties": {"os-complete": {}},
    "required": ["os-complete"],
    "additionalProperties": False,
}
