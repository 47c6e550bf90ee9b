"""What a guest's tagged devices are (Nova's InstanceDeviceMetadata: device role
tagging). A user tags a NIC (`networks[].tag`, os-interface `tag`) or a disk
(`block_device_mapping_v2[].tag`, os-volume_attachments `tag`) so that software in the
guest can tell its devices apart; the tag is only useful with where the device is in
the guest, which only the virt driver knows. So the driver reports the guest's devices
(bus, address, and the MAC or volume id that names each), `tagged` joins them with the
tags the cloud keeps, and the result is kept on the instance for the metadata service
and the config drive (novalite.instance_metadata shows it)."""

from __future__ import annotations

import dataclasses
from typing import Any

from novalite.objects import base

NIC, DISK = "nic", "disk"
PCI = "pci"


@base.register
class DeviceMetadata(base.NovaliteObject):
    type: str  # NIC or DISK
    bus: str  # PCI: the only bus novalite's guests put NICs and disks on
    address: str  # on its bus, as the guest sees it: PCI's 0000:00:03.0
    mac: str | None = None  # a NIC's
    serial: str | None = None  # a disk's: its volume's id
    tags: list[str] = dataclasses.field(default_factory=list)


def pci_address(bus: int, slot: int, function: int = 0) -> str:
    """Nova's (libvirt's) form of a PCI address: domain:bus:slot.function."""
    return f"0000:{bus:02x}:{slot:02x}.{function:x}"


def tagged(devices: list[DeviceMetadata], nic_tags: dict[str, str | None],
           disk_tags: dict[str, str | None]) -> list[DeviceMetadata]:
    """The `devices` a tag names (NICs by MAC, disks by volume id), with it. As Nova,
    only a tagged device is listed: the others are no one's business but the guest's."""
    found = []
    for device in devices:
        tag = (nic_tags.get(device.mac or "") if device.type == NIC
               else disk_tags.get(device.serial or ""))
        if tag:
            found.append(dataclasses.replace(device, tags=[tag]))
    return found


def to_json(devices: list[DeviceMetadata]) -> list[dict[str, Any]]:
    return [device.fields() for device in devices]


def from_json(data: list[dict[str, Any]] | None) -> list[DeviceMetadata]:
    return [DeviceMetadata.from_fields(device) for device in data or []]
