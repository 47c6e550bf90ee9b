"""Bodies of the remote console calls: POST /servers/{id}/remote-consoles (2.6) and the
os-get*Console actions it replaced, with the protocols and types Nova's schemas list
at each microversion (the ones no driver of ours offers are refused further down, with
Nova's 400s)."""

from __future__ import annotations

from typing import Any


def _action(name: str, types: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {name: {
            "type": "object",
            "properties": {"type": {"type": "string", "enum": types}},
            "required": ["type"],
            "additionalProperties": False,
        }},
        "required": [name],
        "additionalProperties": False,
    }


get_vnc_console = _action("os-getVNCConsole", ["novnc", "xvpvnc"])
get_spice_console = _action("os-getSPICEConsole", ["spice-html5"])
get_serial_console = _action("os-getSerialConsole", ["serial"])

_PROTOCOLS = ["vnc", "spice", "serial", "rdp"]
_TYPES = ["novnc", "xvpvnc", "spice-html5", "serial", "rdp-html5"]


def create(mks: bool, spice_direct: bool) -> dict[str, Any]:
    """2.6; `mks` from 2.8 (mks, webmks), `spice_direct` from 2.99."""
    protocols = _PROTOCOLS + ["mks"] * mks
    types = _TYPES + ["webmks"] * mks + ["spice-direct"] * spice_direct
    return {
        "type": "object",
        "properties": {"remote_console": {
            "type": "object",
            "properties": {
                "protocol": {"type": "string", "enum": protocols},
                "type": {"type": "string", "enum": types},
            },
            "required": ["protocol", "type"],
            "additionalProperties": False,
        }},
        "required": ["remote_console"],
        "additionalProperties": False,
    }
