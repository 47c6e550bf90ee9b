"""What a guest is launched from, kept as `guest.json` in its instance directory, and the
QEMU command line built from it.

Keeping the launch configuration beside the disk lets power-on, hard reboot, resume and a
restarted compute service start the same machine again without the image service (Nova
regenerates its libvirt XML from the instance for the same reason).
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Sequence
from typing import Any

from novalite.objects.device_metadata import DeviceMetadata
from novalite.virt import pci_layout
from novalite.virt.qemu import guest_agent
from novalite.virt.qemu import nics as guest_nics
from novalite.virt.qemu import volumes as guest_volumes

# Always on a direct-boot kernel's command line: the serial console we log, and no timer
# check, which panics guests under TCG on a loaded host (reference: qemu-guests.md).
REQUIRED_KERNEL_ARGS = ("console=ttyS0", "no_timer_check")
SERIAL_CHARDEV = "console0"  # the first serial port's backend, as QMP names it
AGENT_CHARDEV = "agent0"  # the guest agent's channel
# QEMU's VNC server takes the first free display from 0 (port 5900) up to this one (port
# 65535): libvirt's autoport range, which Nova's libvirt driver leaves its guests to
VNC_LAST_DISPLAY = 65535 - 5900


@dataclasses.dataclass
class GuestConfig:
    uuid: str
    memory_mb: int
    vcpus: int
    accel: str  # "kvm" or "tcg"
    machine: str
    cpu_model: str
    kernel: str | None = None
    ramdisk: str | None = None
    kernel_args: str = ""
    # Rescued (Nova's rescue): booted from the rescue disk, its own disk attached second
    rescue: bool = False
    # One per port, in the server's order: the guest's MAC, the port and its network's
    # segment, so that any launch on any host can plug the tap first; and its PCIe root
    # `port` (None: on the root bus, in a guest made before NICs had ports:
    # novalite.virt.qemu.nics)
    nics: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    config_drive: bool = False  # disk.config, attached read-only after the disks
    # PCIe root ports: one per NIC the guest was made with, and [libvirt] num_pcie_ports
    # more for volumes and NICs attached later, as many as when the guest was made
    # (none for one made before novalite attached volumes)
    pcie_ports: int = 0
    # The attached volumes (novalite.virt.qemu.volumes.Volume's fields), each on its port
    volumes: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    # A volume-backed guest's root disk (a Volume's fields, no port), instead of the disk
    # file: the volume service owns its data, so it is kept here, never in the directory
    root_volume: dict[str, Any] | None = None
    # The image says the guest runs qemu-ga (hw_qemu_guest_agent): its channel, on a
    # virtio-serial controller at pci_layout.AGENT_SLOT
    guest_agent: bool = False

    def save(self, path: str) -> None:
        temporary = f"{path}.tmp"
        with open(temporary, "w") as out:
            json.dump(dataclasses.asdict(self), out)
        os.replace(temporary, path)

    @classmethod
    def load(cls, path: str) -> GuestConfig:
        with open(path) as source:
            return cls(**json.load(source))


@dataclasses.dataclass(frozen=True)
class GuestPaths:
    """The files of one instance directory."""

    directory: str

    def _file(self, name: str) -> str:
        return os.path.join(self.directory, name)

    @property
    def config(self) -> str:
        return self._file("guest.json")

    @property
    def disk(self) -> str:
        return self._file("disk")

    @property
    def rescue_disk(self) -> str:
        return self._file("disk.rescue")

    @property
    def unrescued_config(self) -> str:
        """The configuration a rescued guest goes back to."""
        return self._file("guest.json.unrescued")

    @property
    def config_drive(self) -> str:
        return self._file("disk.config")

    @property
    def console(self) -> str:
        return self._file("console.log")

    @property
    def qmp(self) -> str:
        return self._file("qmp.sock")

    @property
    def guest_agent(self) -> str:
        return self._file("qga.sock")

    @property
    def pidfile(self) -> str:
        return self._file("qemu.pid")

    @property
    def qemu_log(self) -> str:
        return self._file("qemu.log")

    @property
    def nbd_pidfile(self) -> str:
        """The qemu-nbd serving the disk to a resize's or cold migration's destination."""
        return self._file("nbd.pid")

    @property
    def saved_state(self) -> str:
        """The memory image of a suspended guest (Nova's managed save)."""
        return self._file("suspended.state")


def kernel_command_line(image_args: str) -> str:
    words = image_args.split()
    return " ".join(words + [arg for arg in REQUIRED_KERNEL_ARGS if arg not in words])


def command(emulator: str, config: GuestConfig, paths: GuestPaths,
            incoming: str | None = None, tap_fds: Sequence[int] = (),
            vnc_listen: str | None = None, serial_fd: int | None = None) -> list[str]:
    """The QEMU argv: no display window or default devices, the qcow2 overlay (or the
    root volume) on virtio, the serial console appended to console.log, QMP on a unix
    socket, the remote consoles asked for (`vnc_listen`, `serial_fd`: novalite.virt.
    qemu.consoles); a guest powering itself off (or rebooting after a panic) ends the
    process, as libvirt's on_poweroff/on_crash destroy do. `incoming` restores a
    suspended guest's memory from that migration URI ("defer": a URI given later over
    QMP, for a live migration's destination, which starts paused and runs only when
    told: its disk is in use until then). Each NIC is a virtio-net on the open tap of
    the same position in `tap_fds`, on its PCIe root port (novalite.virt.qemu.nics), or,
    in a guest made before NICs had ports, at its slot of novalite.virt.pci_layout on
    the root bus (the slot QEMU would pick, fixed so that the address reported to the
    guest is its own); the volumes are on their root ports (novalite.virt.qemu.volumes)."""
    argv = [
        emulator, "-name", f"guest={config.uuid}", "-uuid", config.uuid,
        "-accel", config.accel, "-machine", config.machine,
        "-cpu", "host" if config.accel == "kvm" else config.cpu_model,
        "-m", str(config.memory_mb), "-smp", str(config.vcpus),
        "-display", "none", "-nodefaults", "-no-user-config", "-no-reboot",
        *_consoles(paths, vnc_listen, serial_fd),
        # relative: QEMU runs in the instance directory, whose path may be too long for
        # a unix socket's address
        "-qmp", f"unix:{os.path.basename(paths.qmp)},server=on,wait=off",
        "-pidfile", paths.pidfile,
    ]
    if config.rescue:
        argv += ["-drive", f"file={paths.rescue_disk},format=qcow2,if=virtio"]
    if config.root_volume is not None:
        argv += guest_volumes.root_command_line(config.root_volume)
    else:
        argv += ["-drive", f"file={paths.disk},format=qcow2,if=virtio"]
    if config.config_drive:
        argv += ["-drive", f"file={paths.config_drive},format=raw,if=virtio,readonly=on"]
    volume_backed = config.root_volume is not None
    fds = list(tap_fds)
    argv += guest_nics.command_line(config.nics, fds, volume_backed, on_ports=False)
    argv += guest_volumes.command_line(config.pcie_ports, config.volumes)
    argv += guest_nics.command_line(config.nics, fds, volume_backed, on_ports=True)
    if config.guest_agent:
        argv += _guest_agent(paths)
    if config.kernel:
        argv += ["-kernel", config.kernel, "-append", kernel_command_line(config.kernel_args)]
        if config.ramdisk:
            argv += ["-initrd", config.ramdisk]
    if incoming:
        argv += ["-incoming", incoming]
    if incoming == "defer":
        argv.append("-S")
    return argv


def _consoles(paths: GuestPaths, vnc_listen: str | None,
              serial_fd: int | None) -> list[str]:
    """The first serial port logged to console.log, and, as a remote console, listening
    on the socket `serial_fd`; QEMU's VNC server on the first free display of
    `vnc_listen`. Neither adds a device: the VNC server shows QEMU's own blank screen
    of a guest without a display (the guest's console is its serial port), and the
    guest's PCI addresses stay those of novalite.virt.pci_layout."""
    serial = (f"socket,id={SERIAL_CHARDEV},fd={serial_fd},server=on,wait=off,"
              f"logfile={paths.console},logappend=on") if serial_fd is not None \
        else f"file,id={SERIAL_CHARDEV},path={paths.console},append=on"
    argv = ["-chardev", serial, "-serial", f"chardev:{SERIAL_CHARDEV}"]
    if vnc_listen is not None:
        host = f"[{vnc_listen}]" if ":" in vnc_listen else vnc_listen
        argv += ["-vnc", f"{host}:0,to={VNC_LAST_DISPLAY}"]
    return argv


def _guest_agent(paths: GuestPaths) -> list[str]:
    """The guest agent's port, as libvirt gives it: a virtio-serial port QEMU joins to a
    unix socket (relative, as QMP's) that the driver connects to when it needs the agent."""
    return ["-chardev", f"socket,id={AGENT_CHARDEV},path={os.path.basename(paths.guest_agent)},"
                        "server=on,wait=off",
            "-device", f"virtio-serial-pci,id=agent-serial,bus=pcie.0,"
                       f"addr={pci_layout.AGENT_SLOT:#x}",
            "-device", f"virtserialport,bus=agent-serial.0,chardev={AGENT_CHARDEV},"
                       f"name={guest_agent.PORT_NAME}"]


def guest_devices(config: GuestConfig) -> list[DeviceMetadata]:
    """Where the guest `config` launches has its NICs and volumes."""
    root = config.root_volume["serial"] if config.root_volume is not None else None
    return pci_layout.devices(
        [nic["mac"] for nic in config.nics if nic.get("port") is None], root,
        {kept["serial"]: kept["port"] for kept in config.volumes},
        {nic["mac"]: nic["port"] for nic in config.nics if nic.get("port") is not None})
