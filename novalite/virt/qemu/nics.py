"""NICs in a QEMU guest: a virtio-net on the port's tap (opened in the host's network
namespace and handed to QEMU as a descriptor, so QEMU never needs that namespace).

q35's root bus cannot hot-plug, so every NIC sits behind a PCIe root port of its own,
as libvirt gives each PCIe device of a q35 guest, and any of them can leave the running
guest: those a guest is made with take the first ports (in the server's order, so the
guest names them eth0, eth1, ... as before), before the [libvirt] num_pcie_ports spare
ones that volumes and NICs attached later take (novalite.virt.qemu.volumes). Each keeps
its `port` in guest.json: every later launch has it on the same port, at the same
address in the guest. A guest made before NICs had ports keeps its first NICs on the
root bus at the slots of novalite.virt.pci_layout (`port` None), where they stay until
the guest is made again (rebuild, resize, migration) and cannot leave it while it runs.
Attach: the tap's descriptor over QMP (getfd), netdev_add, then device_add on the
port. Detach: device_del, then QEMU's DEVICE_DELETED once the guest let go ([libvirt]
device_detach_timeout, else DeviceDetachFailed and the NIC stays), then netdev_del.
Names derive from the port's id alone, so a NIC plugged by a compute killed before it
saved the configuration can still be found and removed."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from novalite import exception
from novalite.virt import pci_layout
from novalite.virt.qemu import volumes
from novalite.virt.qemu.qmp import QMPClient, QMPError

if TYPE_CHECKING:
    from novalite.virt.qemu.guest import Guest


def _short(port_id: str) -> str:
    return port_id.replace("-", "")[:28]


def netdev_id(port_id: str) -> str:
    return f"tap{_short(port_id)}"


def device_id(port_id: str) -> str:
    return f"nic{_short(port_id)}"


def _device(nic: dict[str, Any], netdev: str) -> dict[str, Any]:
    return {"driver": "virtio-net-pci", "netdev": netdev, "mac": nic["mac"],
            "id": device_id(nic["port_id"]), "bus": volumes.port_id(nic["port"])}


def give_ports(nics: list[dict[str, Any]], spare: int) -> int:
    """Each NIC of a guest being made on its own root port, the first ones; how many
    ports the guest gets with the `spare` ones. NICs beyond the last slot for a port
    stay on the root bus."""
    placed = min(len(nics), volumes.MAX_PORTS - spare)
    for index, nic in enumerate(nics):
        nic["port"] = index if index < placed else None
    return placed + spare


def command_line(nics: list[dict[str, Any]], fds: list[int], volume_backed: bool,
                 on_ports: bool) -> list[str]:
    """The root bus's NICs (`on_ports` False), or those on root ports (True, after the
    ports are declared); `fds`: each NIC's open tap, in the same order."""
    argv: list[str] = []
    index = 0  # of the NICs on the root bus, which take its slots in order
    for nic, fd in zip(nics, fds, strict=True):
        if nic.get("port") is None:
            if not on_ports:
                slot = pci_layout.nic_slot(index, volume_backed)
                argv += ["-netdev", f"tap,id=net{index},fd={fd}",
                         "-device", f"virtio-net-pci,netdev=net{index},mac={nic['mac']},"
                                    f"addr={slot:#x}"]
            index += 1
        elif on_ports:
            device = _device(nic, netdev_id(nic["port_id"]))
            argv += ["-netdev", f"tap,id={device['netdev']},fd={fd}",
                     "-device", ",".join([device.pop("driver"),
                                          *(f"{k}={v}" for k, v in device.items())])]
    return argv


def plug(guest: Guest, nic: dict[str, Any], tap_fd: int) -> None:
    """Into the running guest; nothing is left plugged when it fails."""
    netdev = netdev_id(nic["port_id"])
    with QMPClient(guest.paths.qmp) as client:
        client.send_fd(netdev, tap_fd)
        client.execute("netdev_add", type="tap", id=netdev, fd=netdev)
        try:
            client.execute("device_add", **_device(nic, netdev))
        except QMPError:
            client.execute("netdev_del", id=netdev)
            raise


def unplug(guest: Guest, nic: dict[str, Any], timeout: float) -> None:
    """Out of the running guest, once it let go; a device or backend already gone is
    fine (a detach retried). A NIC on the root bus (of a guest made before NICs had
    ports) cannot leave a running guest."""
    if nic.get("port") is None:
        raise exception.DeviceDetachFailed(
            device=nic["mac"], reason="the guest has it on its root bus, which cannot "
                                      "hot-unplug; detach it while the server is stopped")
    device, netdev = device_id(nic["port_id"]), netdev_id(nic["port_id"])
    with QMPClient(guest.paths.qmp) as client:
        volumes.delete_device(client, device, timeout)
        try:
            client.execute("netdev_del", id=netdev)
        except QMPError as exc:
            if "not found" not in str(exc).lower():
                raise
