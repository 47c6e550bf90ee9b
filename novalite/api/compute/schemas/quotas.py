"""PUT /os-quota-sets and /os-quota-class-sets bodies: each resource a limit (-1 is
unlimited); the nova-network resources go at 2.36 (2.50 for classes), the file
injection ones at 2.57."""

import copy

from novalite.api.compute.schemas.formats import BOOLEAN

_limit = {"type": ["integer", "string"], "pattern": "^-?[0-9]+$", "minimum": -1,
          "maximum": 0x7FFFFFFF}
NETWORK = ("fixed_ips", "floating_ips", "security_groups", "security_group_rules")
INJECTION = ("injected_files", "injected_file_content_bytes", "injected_file_path_bytes")
RESOURCES = ("instances", "cores", "ram", "metadata_items", "key_pairs", "server_groups",
             "server_group_members", *NETWORK, *INJECTION)


def hidden(version: tuple[int, int], network_gone_at: tuple[int, int]) -> tuple[str, ...]:
    """The resources a body neither takes nor shows at `version`."""
    gone: tuple[str, ...] = NETWORK if version >= network_gone_at else ()
    return gone + INJECTION if version >= (2, 57) else gone


def update_for(version: tuple[int, int], key: str, network_gone_at: tuple[int, int]
               ) -> dict:
    properties: dict = {r: copy.deepcopy(_limit) for r in RESOURCES
                        if r not in hidden(version, network_gone_at)}
    if key == "quota_set":
        properties["force"] = BOOLEAN
    return {"type": "object",
            "properties": {key: {"type": "object", "properties": properties,
                                 "additionalProperties": False}},
            "required": [key], "additionalProperties": False}
