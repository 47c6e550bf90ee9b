"""Where a novalite guest's NICs and disks sit on its PCI buses: the layout the qemu
driver gives a q35 guest (each root-bus device at an explicit slot, so the address the
guest sees is the one reported), and that the fake driver reports for its simulated
guests. A guest's device metadata (novalite.objects.device_metadata) is read from it.

On the root bus (pcie.0): a volume-backed guest's root volume at slot 1, then the NICs
that sit there (those of a qemu guest made before NICs had root ports, and all of a
fake guest's it was made with) in the server's order, then the image-backed disks QEMU
places itself (disk, config drive). Attached volumes and the other NICs each sit behind
a PCIe root port at slot 0x10 + its index; the guest's firmware numbers the ports'
secondary buses in slot order from 1, so a device on port i is the only device on bus
i + 1 (slot 0)."""

from __future__ import annotations

from novalite.objects.device_metadata import DISK, NIC, PCI, DeviceMetadata, pci_address

FIRST_SLOT = 1  # slot 0 is the host bridge
# The guest agent's virtio-serial controller, for a guest whose image runs one: below
# the root ports, above any root-bus device a guest has (it is never reported: Nova's
# device metadata has no controllers either)
AGENT_SLOT = 0x0F


def root_volume_slot() -> int:
    return FIRST_SLOT


def nic_slot(index: int, volume_backed: bool) -> int:
    """The slot of the server's `index`th NIC, after the root volume if it has one."""
    return FIRST_SLOT + int(volume_backed) + index


def volume_bus(port: int) -> int:
    return port + 1


def devices(macs: list[str], root_volume: str | None, volumes: dict[str, int],
            plugged_nics: dict[str, int] | None = None) -> list[DeviceMetadata]:
    """The NICs on the root bus (`macs` in order), the root volume (its id), the
    attached volumes (id -> root port index) and the attached NICs (MAC -> root port
    index) of a guest, each at its address."""
    found = []
    if root_volume is not None:
        found.append(DeviceMetadata(type=DISK, bus=PCI, serial=root_volume,
                                    address=pci_address(0, root_volume_slot())))
    found += [DeviceMetadata(type=NIC, bus=PCI, mac=mac,
                             address=pci_address(0, nic_slot(index, root_volume is not None)))
              for index, mac in enumerate(macs)]
    found += [DeviceMetadata(type=DISK, bus=PCI, serial=serial,
                             address=pci_address(volume_bus(port), 0))
              for serial, port in volumes.items()]
    found += [DeviceMetadata(type=NIC, bus=PCI, mac=mac,
                             address=pci_address(volume_bus(port), 0))
              for mac, port in (plugged_nics or {}).items()]
    return found
