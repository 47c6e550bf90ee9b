"""Volumes in a QEMU guest. Each is the NBD export the volume service made for its
attachment, read by a QEMU block node (`blockdev nbd`, which reconnects if the export
restarts) under a virtio-blk device whose serial is the volume's id, so the guest finds
it as /dev/disk/by-id/virtio-<id[:20]>, and which keeps no cache (CACHE_NONE). A
multiattach volume (the connection says `multiattach`, as Nova's does) is a shareable
disk, as libvirt makes one of `<shareable/>`: other guests write it at the same time.
q35's root bus cannot hot-plug, so a guest gets [libvirt] num_pcie_ports spare PCIe root
ports when it is made (after one per NIC: novalite.virt.qemu.nics) and each volume
takes one (a live migration's incoming guest gets as many, each volume on its port:
novalite.virt.qemu.live_migration.Layout).

Attach: blockdev-add, then device_add on a free port of a running guest (ACPI hot-plug);
the volume is kept in guest.json, so every later launch (power on, hard reboot, resume,
host boot) has it on its command line, on the same port. Detach: device_del, then QEMU's
DEVICE_DELETED for the device once the guest has ejected it (Nova's libvirt driver
waits for the same event); no event within [libvirt] device_detach_timeout leaves the
volume attached and raises; then blockdev-del. Node and device names derive from the
volume's id alone, so a device plugged by a compute killed before it saved the
configuration can still be found and removed.

A volume-backed guest's root disk is a volume too, the same node under a device on pcie.0
instead of a root port: QEMU places the command line's devices before the `-drive`s it
makes virtio disks of, so the root is the guest's first virtio disk (/dev/vda), and it
is first in the boot order for a volume the BIOS boots; it is at a fixed slot of the root
bus (novalite.virt.pci_layout), so its address in the guest is known."""

from __future__ import annotations

import dataclasses
import json
import time
from typing import TYPE_CHECKING, Any

from novalite import exception
from novalite.virt import pci_layout
from novalite.virt.qemu.qmp import QMPClient, QMPError

if TYPE_CHECKING:
    from novalite.virt.qemu.guest import Guest

# Seconds a guest's I/O waits for an export that went away (its volume service
# restarting) to come back before it fails; QEMU reconnects meanwhile.
RECONNECT_DELAY = 30
# Every volume's node is libvirt's cache mode none (Nova's libvirt driver's for volumes,
# and the one libvirt requires of a network disk a live migration leaves open on two
# hosts): it keeps no written data of its own and passes the guest's flushes on to the
# export, so what the source wrote is the export's when the destination's guest runs.
# A shareable disk's device (libvirt's `<shareable/>`, a multiattach volume) also lets
# other writers share the image (`share-rw=on`) and tells the guest it has a write cache
# to flush
CACHE_NONE = {"cache": {"direct": True, "no-flush": False}}
# The root ports' slots on pcie.0, clear of those QEMU gives the disks and NICs (from
# 0x1) and of the ICH9 functions (0x1f)
FIRST_SLOT = 0x10
MAX_PORTS = 0x1F - FIRST_SLOT


def _short(serial: str) -> str:
    """30 characters of the volume id: a QEMU node name may have 31."""
    return serial.replace("-", "")[:30]


@dataclasses.dataclass(frozen=True)
class Volume:
    """An attached volume as guest.json keeps it."""

    serial: str  # the volume's id
    port: int | None  # the index of its root port; None for the root disk (on pcie.0)
    host: str  # of the export
    nbd_port: int
    export: str
    read_only: bool
    shareable: bool = False  # a multiattach volume, which other guests write too

    @classmethod
    def of(cls, connection_info: dict[str, Any], port: int | None) -> Volume:
        """From the volume service's connection info (an NBD export only)."""
        kind = connection_info.get("driver_volume_type")
        if kind != "nbd":
            raise exception.NovaliteException(
                f"The qemu driver attaches volumes exported over NBD, not {kind}.")
        data = connection_info["data"]
        return cls(serial=connection_info["serial"], port=port, host=data["host"],
                   nbd_port=int(data["port"]), export=data["export"],
                   read_only=data.get("access_mode") == "ro",
                   shareable=bool(connection_info.get("multiattach")))

    @property
    def node(self) -> str:
        return node_name(self.serial)

    @property
    def device(self) -> str:
        return device_id(self.serial)

    def blockdev(self) -> dict[str, Any]:
        return {"driver": "nbd", "node-name": self.node,
                "server": {"type": "inet", "host": self.host, "port": str(self.nbd_port)},
                "export": self.export, "read-only": self.read_only,
                "reconnect-delay": RECONNECT_DELAY, **CACHE_NONE}

    def device_args(self) -> dict[str, Any]:
        where = ({"bootindex": 1, "addr": f"{pci_layout.root_volume_slot():#x}"}
                 if self.port is None else {"bus": port_id(self.port)})
        shared = {"share-rw": "on", "write-cache": "on"} if self.shareable else {}
        return {"driver": "virtio-blk-pci", "drive": self.node, "id": self.device,
                "serial": self.serial, **where, **shared}

    def probe_filename(self) -> str:
        """The disk as qemu-img reads it (a `json:` filename of this node's options, its
        own connection, no guest's cache mode): a look at the volume before a guest has
        it."""
        options = {key: value for key, value in self.blockdev().items()
                   if key not in ("node-name", "read-only", "cache")}
        return "json:" + json.dumps({"file": options})


def node_name(serial: str) -> str:
    return f"n{_short(serial)}"


def device_id(serial: str) -> str:
    return f"d{_short(serial)}"


def port_id(index: int) -> str:
    return f"volport{index}"


def command_line(ports: int, volumes: list[dict[str, Any]]) -> list[str]:
    """The root ports, and each volume's node and device on its port."""
    argv: list[str] = []
    for index in range(ports):
        argv += ["-device", f"pcie-root-port,id={port_id(index)},bus=pcie.0,"
                            f"chassis={index + 1},addr={FIRST_SLOT + index:#x}"]
    for kept in volumes:
        argv += _node_and_device(Volume(**kept))
    return argv


def root_command_line(kept: dict[str, Any]) -> list[str]:
    """A volume-backed guest's root volume, where an image-backed guest's disk is."""
    return _node_and_device(Volume(**kept))


def _node_and_device(volume: Volume) -> list[str]:
    device = volume.device_args()
    return ["-blockdev", json.dumps(volume.blockdev()), "-device",
            ",".join([device.pop("driver"), *(f"{k}={v}" for k, v in device.items())])]


def free_port(ports: int, taken: list[dict[str, Any]]) -> int:
    """The first root port none of the `taken` devices (volumes, and NICs attached
    after the guest was made, which share the pool) sits on."""
    used = {kept.get("port") for kept in taken}
    for index in range(ports):
        if index not in used:
            return index
    raise exception.NovaliteException(
        f"The guest has no free PCIe port for another device: it was made with {ports} "
        "([libvirt] num_pcie_ports), all taken.")


def plug(guest: Guest, volume: Volume) -> None:
    """Into the running guest; nothing is left plugged when it fails."""
    guest.qmp("blockdev-add", **volume.blockdev())
    try:
        guest.qmp("device_add", **volume.device_args())
    except QMPError:
        guest.qmp("blockdev-del", **{"node-name": volume.node})
        raise


def grow(guest: Guest, serial: str, size: int) -> None:
    """The running guest's disk of the volume shown `size` bytes (virtio-blk tells the
    guest's kernel). QEMU's NBD client takes an export's new size when it reconnects
    to it, which it does on its next request once the export restarted: a read through
    the node (HMP's qemu-io) makes that request if none came yet."""
    node = node_name(serial)
    try:
        guest.qmp("block_resize", **{"node-name": node, "size": size})
    except QMPError as exc:
        if "Cannot grow NBD nodes" not in str(exc):
            raise
        guest.qmp("human-monitor-command",
                  **{"command-line": f'qemu-io {node} "read 0 512"'})
        guest.qmp("block_resize", **{"node-name": node, "size": size})


def unplug(guest: Guest, serial: str, timeout: float) -> None:
    """Out of the running guest, once it let go; a device or node already gone is fine
    (a detach retried, or one of a volume never plugged)."""
    with QMPClient(guest.paths.qmp) as client:
        delete_device(client, device_id(serial), timeout)
        try:
            client.execute("blockdev-del", **{"node-name": node_name(serial)})
        except QMPError as exc:
            if "Failed to find node" not in str(exc):
                raise


def delete_device(client: QMPClient, device: str, timeout: float) -> None:
    """device_del, then the guest's release of it (a NIC's unplug too:
    novalite.virt.qemu.nics); a device already gone is fine (a detach retried)."""
    try:
        client.execute("device_del", id=device)
    except QMPError as exc:
        if "DeviceNotFound" not in str(exc):
            raise
    else:
        _wait_deleted(client, device, timeout)


def _wait_deleted(client: QMPClient, device: str, timeout: float) -> None:
    """QEMU's DEVICE_DELETED for `device` (one comes first for its virtio backend)."""
    deadline = time.monotonic() + timeout
    while True:
        event = client.wait_event("DEVICE_DELETED", max(0.0, deadline - time.monotonic()))
        if event is None:
            raise exception.DeviceDetachFailed(
                device=device, reason=f"the guest did not release it within {timeout:g}s")
        if event.get("data", {}).get("device") == device:
            return
