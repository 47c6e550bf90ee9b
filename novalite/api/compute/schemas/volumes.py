"""Bodies of Nova's volume and snapshot proxies (its schemas/volumes.py and
schemas/snapshots.py): Nova's old field names, no others."""

from __future__ import annotations

from novalite.api.compute.schemas.formats import BOOLEAN

create_volume = {
    "type": "object",
    "properties": {"volume": {
        "type": "object",
        "properties": {
            "volume_type": {"type": "string"},
            "metadata": {"type": "object", "additionalProperties": True},
            "snapshot_id": {"type": "string"},
            "size": {"type": ["integer", "string"], "pattern": "^[0-9]+$", "minimum": 1},
            "availability_zone": {"type": "string"},
            "display_name": {"type": "string"},
            "display_description": {"type": "string"},
        },
        "required": ["size"], "additionalProperties": False}},
    "required": ["volume"], "additionalProperties": False,
}

create_snapshot = {
    "type": "object",
    "properties": {"snapshot": {
        "type": "object",
        "properties": {
            "volume_id": {"type": "string"},
            "force": BOOLEAN,
            "display_name": {"type": "string"},
            "display_description": {"type": "string"},
        },
        "required": ["volume_id"], "additionalProperties": False}},
    "required": ["snapshot"], "additionalProperties": False,
}
