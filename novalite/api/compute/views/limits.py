"""The /limits view: Nova's absolute limit names, less those retired by 2.36 (nova-network
proxies), 2.39 (image metadata) and 2.57 (personality files)."""

from __future__ import annotations

# quota resource -> the absolute limit names showing it
_LIMIT_NAMES = {
    "ram": ("maxTotalRAMSize",),
    "instances": ("maxTotalInstances",),
    "cores": ("maxTotalCores",),
    "key_pairs": ("maxTotalKeypairs",),
    "floating_ips": ("maxTotalFloatingIps",),
    "metadata_items": ("maxServerMeta", "maxImageMeta"),
    "injected_files": ("maxPersonality",),
    "injected_file_content_bytes": ("maxPersonalitySize",),
    "security_groups": ("maxSecurityGroups",),
    "security_group_rules": ("maxSecurityGroupRules",),
    "server_groups": ("maxServerGroups",),
    "server_group_members": ("maxServerGroupMembers",),
}
# usage name -> quota resource
_USED_NAMES = {
    "totalRAMUsed": "ram",
    "totalCoresUsed": "cores",
    "totalInstancesUsed": "instances",
    "totalFloatingIpsUsed": "floating_ips",
    "totalSecurityGroupsUsed": "security_groups",
    "totalServerGroupsUsed": "server_groups",
}
_NETWORK = {"floating_ips", "security_groups", "security_group_rules"}
_PERSONALITY = {"injected_files", "injected_file_content_bytes"}


def _hidden(version: tuple[int, int]) -> set[str]:
    hidden = set(_NETWORK) if version >= (2, 36) else set()
    return hidden | _PERSONALITY if version >= (2, 57) else hidden


def build(limits: dict[str, int], usage: dict[str, int], version: tuple[int, int]) -> dict:
    hidden = _hidden(version)
    absolute = {name: limits[resource]
                for resource, names in _LIMIT_NAMES.items() if resource not in hidden
                for name in names if not (name == "maxImageMeta" and version >= (2, 39))}
    absolute.update({name: usage[resource] for name, resource in _USED_NAMES.items()
                     if resource not in hidden})
    return {"limits": {"rate": [], "absolute": absolute}}
