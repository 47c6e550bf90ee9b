"""Glance's `image` schema (the subset of attributes novalite serves). Additional
properties are free-form strings, as with Glance's default permissive schema."""

from __future__ import annotations

from typing import Any

import jsonschema

from novalite.image import errors

DISK_FORMATS = ["ami", "ari", "aki", "vhd", "vhdx", "vmdk", "raw", "qcow2", "vdi", "iso",
                "ploop"]
CONTAINER_FORMATS = ["ami", "ari", "aki", "bare", "ovf", "ova", "docker", "compressed"]
_UUID = "^([0-9a-fA-F]){8}-([0-9a-fA-F]){4}-([0-9a-fA-F]){4}-([0-9a-fA-F]){4}-([0-9a-fA-F]){12}$"
_READ_ONLY_STRING = {"type": ["null", "string"], "readOnly": True}

PROPERTIES: dict[str, Any] = {
    "id": {"type": "string", "pattern": _UUID,
           "description": "An identifier for the image"},
    "name": {"type": ["null", "string"], "maxLength": 255,
             "description": "Descriptive name for the image"},
    "status": {"type": "string", "readOnly": True,
               "enum": ["queued", "saving", "active", "killed", "deleted", "uploading",
                        "importing", "pending_delete", "deactivated"]},
    "visibility": {"type": "string", "enum": ["community", "public", "private", "shared"],
                   "description": "Scope of image accessibility"},
    "protected": {"type": "boolean", "description": "If true, image will not be deletable."},
    "os_hidden": {"type": "boolean",
                  "description": "If true, image will not appear in default image list "
                                 "response."},
    "checksum": {**_READ_ONLY_STRING, "maxLength": 32},
    "os_hash_algo": {**_READ_ONLY_STRING, "maxLength": 64},
    "os_hash_value": {**_READ_ONLY_STRING, "maxLength": 128},
    "owner": {"type": ["null", "string"], "maxLength": 255,
              "description": "Owner of the image"},
    "size": {"type": ["null", "integer"], "readOnly": True},
    "virtual_size": {"type": ["null", "integer"], "readOnly": True},
    "container_format": {"type": ["null", "string"], "enum": [None, *CONTAINER_FORMATS]},
    "disk_format": {"type": ["null", "string"], "enum": [None, *DISK_FORMATS]},
    "created_at": {"type": "string", "readOnly": True},
    "updated_at": {"type": "string", "readOnly": True},
    "tags": {"type": "array", "items": {"type": "string", "maxLength": 255}},
    "min_ram": {"type": "integer", "minimum": 0,
                "description": "Amount of ram (in MB) required to boot image."},
    "min_disk": {"type": "integer", "minimum": 0,
                 "description": "Amount of disk space (in GB) required to boot image."},
    "self": {"type": "string", "readOnly": True},
    "file": {"type": "string", "readOnly": True},
    "schema": {"type": "string", "readOnly": True},
}

IMAGE: dict[str, Any] = {
    "name": "image",
    "properties": PROPERTIES,
    "additionalProperties": {"type": "string"},
    "links": [{"rel": "self", "href": "{self}"}, {"rel": "enclosure", "href": "{file}"},
              {"rel": "describedby", "href": "{schema}"}],
}

IMAGES: dict[str, Any] = {
    "name": "images",
    "properties": {
        "images": {"type": "array", "items": IMAGE},
        "schema": {"type": "string"}, "first": {"type": "string"},
        "next": {"type": "string"},
    },
    "links": [{"rel": "first", "href": "{first}"}, {"rel": "next", "href": "{next}"},
              {"rel": "describedby", "href": "{schema}"}],
}

_VALIDATOR = jsonschema.Draft4Validator({"type": "object", **IMAGE})


class InvalidObject(errors.ImageError):
    msg_fmt = "Provided object does not match schema '%(schema)s': %(reason)s"


def validate(document: Any) -> None:
    """Glance's check of an image document (a create body, or an image after a patch)."""
    error = jsonschema.exceptions.best_match(_VALIDATOR.iter_errors(document))
    if error is not None:
        raise InvalidObject(schema="image", reason=error.message)
