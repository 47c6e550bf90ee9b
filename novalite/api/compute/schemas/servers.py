"""POST /servers body: Nova's schema at 2.1, and what later microversions add."""

import copy
import functools
from typing import Any

_name = {"type": "string", "minLength": 1, "maxLength": 255,
         "pattern": r"^(?! )[^\x00-\x1f]*(?<! )$"}
_uuid_or_href = {"type": "string", "maxLength": 2048}
_positive_int = {"type": ["integer", "string"], "pattern": "^[0-9]*$", "minimum": 1,
                 "minLength": 1}
_metadata = {"type": "object",
             "patternProperties": {"^[a-zA-Z0-9-_:. ]{1,255}$":
                                   {"type": "string", "maxLength": 255}},
             "additionalProperties": False}
# Nova's block_device_mapping_v2 entry (novalite.compute.boot_volumes checks the rest)
_bdm_v2 = {"type": "object", "properties": {
    "uuid": {"type": "string", "minLength": 1, "maxLength": 255,
             "pattern": "^[a-zA-Z0-9._-]*$"},
    "boot_index": {"type": ["integer", "string", "null"], "pattern": "^-?[0-9]+$"},
    "source_type": {"type": "string", "enum": ["volume", "image", "snapshot", "blank"]},
    "destination_type": {"type": "string", "enum": ["local", "volume"]},
    "delete_on_termination": {"type": ["boolean", "string"],
                              "enum": [True, "True", False, "False", "true", "false",
                                       "1", "0", "yes", "no", "on", "off"]},
    "volume_size": {"type": ["integer", "string"], "pattern": "^[0-9]+$", "minimum": 1,
                    "maximum": 0x7FFFFFFF},
    "device_name": {"type": "string", "minLength": 1, "maxLength": 255},
    "guest_format": {"type": "string", "maxLength": 255},
    "disk_bus": {"type": "string", "maxLength": 255},
    "device_type": {"type": "string", "maxLength": 255},
}, "additionalProperties": False}
# 2.67: the volume type of a volume the compute makes
_volume_type = {"type": ["string", "null"], "minLength": 0, "maxLength": 255}

create: dict[str, Any] = {
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

_description = {"type": ["string", "null"], "minLength": 0, "maxLength": 255,
                "pattern": r"^[^\x00-\x08\x0b\x0c\x0e-\x1f]*$"}
_fqdn = {"type": "string", "minLength": 1, "maxLength": 255, "pattern": "^[a-zA-Z0-9-._]*$"}
_network: dict[str, Any] = {"type": "object", "properties": {
    "uuid": {"type": "string"}, "port": {"type": ["string", "null"]},
    "fixed_ip": {"type": "string", "oneOf": [{"format": "ipv4"}, {"format": "ipv6"}]}},
    "additionalProperties": False}


TAG = {"type": "string", "pattern": "^[^,/]*$", "minLength": 1, "maxLength": 60}
MAX_TAGS = 50


def _device_tags(version: tuple[int, int]) -> tuple[bool, bool]:
    """Whether a NIC and a block device may carry a device tag at `version`, as in
    Nova: both from 2.32, but 2.33 dropped the block device's by mistake and 2.37 the
    NIC's; 2.42 gave both back."""
    return ((2, 32) <= version < (2, 37) or version >= (2, 42),
            version == (2, 32) or version >= (2, 42))


@functools.cache
def create_for(version: tuple[int, int]) -> dict:
    """The create schema at `version`: each microversion adds to the one before. Made
    once a version (a deep copy a boot otherwise); the caller only reads it."""
    body = copy.deepcopy(create)
    server = body["properties"]["server"]
    if version >= (2, 19):
        server["properties"]["description"] = _description
    nic_tag, bdm_tag = _device_tags(version)
    network = copy.deepcopy(_network)
    if nic_tag:
        network["properties"]["tag"] = TAG
    server["properties"]["networks"] = {"type": "array", "items": network}
    if version >= (2, 37):
        server["properties"]["networks"] = {"oneOf": [
            {"type": "array", "items": network},
            {"type": "string", "enum": ["none", "auto"]}]}
        server["required"].append("networks")
    bdm: dict[str, Any] = copy.deepcopy(_bdm_v2)
    if bdm_tag:
        bdm["properties"]["tag"] = TAG
    if version >= (2, 52):
        server["properties"]["tags"] = {"type": "array", "items": TAG,
                                        "maxItems": MAX_TAGS}
    if version >= (2, 67):
        bdm["properties"]["volume_type"] = _volume_type
    server["properties"]["block_device_mapping_v2"] = {"type": "array", "items": bdm}
    if version >= (2, 74):
        server["properties"]["host"] = _fqdn
        server["properties"]["hypervisor_hostname"] = _fqdn
    if version >= (2, 90):
        server["properties"]["hostname"] = hostname_for(version)
    return body


_hostname = {"type": "string", "minLength": 2, "maxLength": 63,
             "pattern": "^[a-zA-Z0-9]+[a-zA-Z0-9-]*[a-zA-Z0-9]+$"}


def hostname_for(version: tuple[int, int]) -> dict:
    """A hostname the user chooses (2.90), which may be a fully qualified name from 2.94."""
    return _fqdn if version >= (2, 94) else _hostname


def update_for(version: tuple[int, int]) -> dict:
    """PUT /servers/{id}: name, access IPs and disk config; a description from 2.19 and
    a hostname from 2.90 (an FQDN from 2.94)."""
    properties = {"name": _name, "OS-DCF:diskConfig": {"type": "string",
                                                       "enum": ["AUTO", "MANUAL"]},
                  "accessIPv4": {"type": "string", "format": "ipv4"},
                  "accessIPv6": {"type": "string", "format": "ipv6"}}
    if version >= (2, 19):
        properties["description"] = _description
    if version >= (2, 90):
        properties["hostname"] = hostname_for(version)
    return {"type": "object",
            "properties": {"server": {"type": "object", "properties": properties,
                                      "additionalProperties": False}},
            "required": ["server"], "additionalProperties": False}


def rebuild_for(version: tuple[int, int]) -> dict:
    """The rebuild action's body: a description from 2.19, a key pair (or none) from 2.54,
    user data instead of personality files from 2.57, trusted image certificates from
    2.63 and a hostname from 2.90."""
    properties: dict[str, Any] = {
        "imageRef": _uuid_or_href, "name": _name, "adminPass": {"type": "string"},
        "metadata": _metadata, "preserve_ephemeral": {"type": ["boolean", "string"]},
        "OS-DCF:diskConfig": {"type": "string", "enum": ["AUTO", "MANUAL"]},
        "accessIPv4": {"type": "string", "format": "ipv4"},
        "accessIPv6": {"type": "string", "format": "ipv6"},
        "personality": {"type": "array"}}
    if version >= (2, 19):
        properties["description"] = _description
    if version >= (2, 54):
        properties["key_name"] = {"type": ["string", "null"], "minLength": 1,
                                  "maxLength": 255}
    if version >= (2, 57):
        del properties["personality"]
        properties["user_data"] = {"type": ["string", "null"], "maxLength": 65535}
    if version >= (2, 63):
        properties["trusted_image_certificates"] = {"type": ["array", "null"]}
    if version >= (2, 90):
        properties["hostname"] = hostname_for(version)
    return {"type": "object",
            "properties": {"rebuild": {"type": "object", "properties": properties,
                                       "required": ["imageRef"],
                                       "additionalProperties": False}},
            "required": ["rebuild"], "additionalProperties": False}
