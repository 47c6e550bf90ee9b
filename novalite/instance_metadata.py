"""What a guest is told about itself, in the OpenStack metadata layout (Nova's
InstanceMetadata): `meta_data.json` (its uuid, name, hostname, keys, metadata),
`network_data.json` (its NICs and how each is addressed), and the user data as given.
It is written on a config drive by the virt driver and, in the same shape, served by
the metadata service, so cloud-init finds one tree either way. What a metadata version
added is left out of older versions' meta_data.json, as Nova does: the tagged devices
(`devices`) from 2016-06-30, each NIC's `vf_trusted` (never, here) from 2018-08-27."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import ipaddress
import json
from typing import Any

from novalite.objects.device_metadata import NIC, DeviceMetadata
from novalite.objects.instance import Instance
from novalite.objects.network_info import VIF

ROOT = "openstack/latest"
LATEST = "latest"
DEVICES_SINCE = "2016-06-30"  # Nova's NEWTON_ONE
VF_TRUSTED_SINCE = "2018-08-27"  # Nova's ROCKY


def _since(version: str, first: str) -> bool:
    """Versions are dates, which sort as strings; "latest" is after them all."""
    return version == LATEST or version >= first


def sign(instance_id: str, secret: str) -> str:
    """The proxy's X-Instance-ID-Signature, which the metadata API checks."""
    return hmac.new(secret.encode(), instance_id.encode(), hashlib.sha256).hexdigest()


def _device(device: DeviceMetadata, version: str) -> dict[str, Any]:
    """One tagged device as Nova's metadata API words it."""
    found: dict[str, Any] = {"type": device.type, "bus": device.bus,
                             "address": device.address}
    if device.type == NIC:
        found["mac"] = device.mac
        if _since(version, VF_TRUSTED_SINCE):
            found["vf_trusted"] = False  # novalite passes no VFs through
    elif device.serial is not None:
        found["serial"] = device.serial
    found["tags"] = list(device.tags)
    return found


def meta_data(instance: Instance, version: str = LATEST) -> dict[str, Any]:
    found: dict[str, Any] = {
        "uuid": instance.uuid, "name": instance.display_name or "",
        "hostname": instance.hostname or "", "launch_index": instance.launch_index or 0,
        "availability_zone": instance.availability_zone, "project_id": instance.project_id,
        "meta": dict(instance.metadata)}
    if _since(version, DEVICES_SINCE):
        found["devices"] = [_device(d, version) for d in instance.device_metadata]
    if instance.key_name and instance.key_data:
        found["public_keys"] = {instance.key_name: instance.key_data}
        found["keys"] = [{"name": instance.key_name, "type": "ssh",
                          "data": instance.key_data}]
    return found


def _link(vif: VIF) -> dict[str, Any]:
    return {"id": vif.devname, "vif_id": vif.id, "type": "bridge",
            "ethernet_mac_address": vif.address, "mtu": vif.network.mtu}


def network_data(instance: Instance) -> dict[str, Any]:
    """Per NIC a link, and per subnet how it gets its address: DHCP where the subnet has
    it, else the port's address, netmask and routes given outright."""
    networks: list[dict[str, Any]] = []
    dns: list[str] = []
    for vif in instance.network_info:
        for subnet in vif.network.subnets:
            kind = "ipv4" if subnet.version == 4 else "ipv6"
            entry: dict[str, Any] = {"id": f"network{len(networks)}", "link": vif.devname,
                                     "network_id": vif.network.id}
            if subnet.dhcp_enabled and subnet.version == 4:
                entry["type"] = "ipv4_dhcp"
            elif subnet.ips:
                cidr = ipaddress.ip_network(subnet.cidr)
                entry.update(type=kind, ip_address=subnet.ips[0].address,
                             netmask=str(cidr.netmask) if kind == "ipv4" else str(cidr.prefixlen),
                             routes=[{"network": "0.0.0.0" if kind == "ipv4" else "::",
                                      "netmask": "0.0.0.0" if kind == "ipv4" else "0",
                                      "gateway": subnet.gateway}] if subnet.gateway else [])
            else:
                continue
            networks.append(entry)
            dns += [d for d in subnet.dns if d not in dns]
    return {"links": [_link(vif) for vif in instance.network_info], "networks": networks,
            "services": [{"type": "dns", "address": d} for d in dns]}


# The password a guest posts (encrypted with its key, by cloudbase-init or nova-agent),
# kept as Nova keeps it: in the system metadata, in four chunks of 255 characters.
PASSWORD_SINCE = "2013-04-04"  # Nova's GRIZZLY
PASSWORD_CHUNKS, PASSWORD_CHUNK_LENGTH = 4, 255
PASSWORD_MAX_SIZE = PASSWORD_CHUNKS * PASSWORD_CHUNK_LENGTH


def serves_password(version: str) -> bool:
    return _since(version, PASSWORD_SINCE)


def password(system_metadata: dict[str, str]) -> str:
    """The password posted, "" when none was (or it was cleared)."""
    return "".join(system_metadata[key] for key in sorted(system_metadata)
                   if key.startswith("password_"))


def password_chunks(text: str) -> dict[str, str]:
    """The system metadata that holds `text` ("" clears it)."""
    size = PASSWORD_CHUNK_LENGTH
    return {f"password_{i}": text[i * size:(i + 1) * size] for i in range(PASSWORD_CHUNKS)}


def user_data(instance: Instance) -> bytes | None:
    """The user data as the guest sees it: decoded from the base64 the API took."""
    if not instance.user_data:
        return None
    try:
        return base64.b64decode(instance.user_data, validate=False)
    except (binascii.Error, ValueError):
        return None


def files(instance: Instance, version: str = LATEST) -> dict[str, bytes]:
    """The tree, as paths under its root and their contents (as `version` has them)."""
    tree = {f"{ROOT}/meta_data.json": json.dumps(meta_data(instance, version)).encode(),
            f"{ROOT}/network_data.json": json.dumps(network_data(instance)).encode(),
            f"{ROOT}/vendor_data.json": b"{}", f"{ROOT}/vendor_data2.json": b"{}"}
    data = user_data(instance)
    if data is not None:
        tree[f"{ROOT}/user_data"] = data
    return tree
