"""Body of POST /os-assisted-volume-snapshots, as Nova's schema: what the volume
service's backend made (a qcow2 file on top of the volume's chain) and the snapshot it
is for."""

from __future__ import annotations

_NON_EMPTY = {"type": "string", "minLength": 1}

create = {
    "type": "object",
    "properties": {
        "snapshot": {
            "type": "object",
            "properties": {
                "volume_id": _NON_EMPTY,
                "create_info": {
                    "type": "object",
                    "properties": {
                        "snapshot_id": _NON_EMPTY,
                        "type": {"type": "string", "enum": ["qcow2"]},
                        "new_file": _NON_EMPTY,
                        "id": _NON_EMPTY,
                    },
                    "required": ["snapshot_id", "type", "new_file"],
                    "additionalProperties": False,
                },
            },
            "required": ["volume_id", "create_info"],
            "additionalProperties": False,
        },
    },
    "required": ["snapshot"],
    "additionalProperties": False,
}
