"""A running guest from one QEMU to another, as libvirt drives it for Nova when the two
hosts share no storage: the destination's QEMU waits for the guest (-incoming defer) and
serves its empty disk over NBD; the source mirrors its disk into that export, then
migrates the memory while the guest runs (a TCG guest paused: pauses_for_copy); paused
just before the switch, it ends the mirror (the disks are identical) and lets QEMU
switch over. query-migrate reports the downtime the guest saw.

QEMU's migration stream carries the state of devices, not the devices: the incoming
QEMU is the same machine, which the source describes (Layout) before the destination
starts it — the same PCIe root ports, each volume on the port it has on the source.
Volumes are shared storage, never copied: both QEMUs open the volume's one export (it
takes a second client for this), the incoming one's nodes inactive until it runs
(late-block-activate), the source's flushed and closed by QEMU at the switch-over; their
nodes keep no data of their own (novalite.virt.qemu.volumes.CACHE_NONE). A
volume-backed guest has no disk of the directory: nothing is mirrored at all."""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import threading
import time
from collections.abc import Callable

from novalite import exception
from novalite.conf import CONF
from novalite.virt.qemu import nbd
from novalite.virt.qemu.guest import Guest
from novalite.virt.qemu.qmp import QMPError

LOG = logging.getLogger(__name__)

DRIVE = "virtio0"  # what QEMU calls the guest's one -drive if=virtio
JOB = "live-migration-mirror"
POLL_S = 0.05
# while the guest is paused for its copy, each poll's wait is downtime: look often
PAUSED_POLL_S = 0.01
LAYOUT = "layout"  # the key of the source's Layout in its migrate_data
UNBOUNDED_MIB_S = 1 << 30  # 1 PiB/s: more than any link


@dataclasses.dataclass
class Control:
    """What an admin asks of a migration under way: finish now (the guest pauses so that
    the copy converges) or stop (the guest runs on where it was)."""

    force: threading.Event = dataclasses.field(default_factory=threading.Event)
    abort: threading.Event = dataclasses.field(default_factory=threading.Event)


@dataclasses.dataclass(frozen=True)
class Layout:
    """What the destination must know of the source's guest to start the same machine
    (the source's migrate_data for pre_live_migration, under LAYOUT)."""

    pcie_ports: int  # as many as the guest was made with, whatever this host's option
    volume_ports: dict[str, int]  # each attached volume's root port, by volume id
    # a volume-backed guest's kernel, ramdisk and command line, as image properties (the
    # destination reads no image for it, as for a cold migration); None with a disk
    boot: dict[str, str] | None = None
    # each NIC on a root port (all of a guest made since NICs had ports): its port, by
    # MAC; the others are on the root bus, in the order of the server's ports
    nic_ports: dict[str, int] = dataclasses.field(default_factory=dict)

    def to_data(self) -> dict[str, object]:
        return {LAYOUT: dataclasses.asdict(self)}

    @classmethod
    def from_data(cls, migrate_data: dict[str, object]) -> Layout | None:
        """None when the source did not say (a compute before RPC 1.25)."""
        found = migrate_data.get(LAYOUT)
        return cls(**found) if isinstance(found, dict) else None


def receive(guest: Guest, emulator: str, disk: bool) -> dict[str, str]:
    """On the destination (its configuration written, with an empty overlay when the
    guest has a `disk`): QEMU started to receive, the disk exported; where the source
    sends the disk (under "nbd", only with a disk) and the memory."""
    address = CONF.my_ip
    guest.launch(emulator, incoming="defer")
    # the disks stay inactive until the guest is told to run (libvirt's way): else
    # QEMU, taking the disk at the switch-over, finds the export writing to it and
    # exits; and no volume is written from here while the source still writes it
    guest.qmp("migrate-set-capabilities",
              capabilities=[{"capability": "late-block-activate", "state": True}])
    found = {"nbd": _export_disk(guest, address)} if disk else {}
    migrate_uri = f"tcp:{address}:{nbd.free_port(address)}"
    guest.qmp("migrate-incoming", uri=migrate_uri)
    return {**found, "uri": migrate_uri}


def _export_disk(guest: Guest, address: str) -> str:
    nbd_port = nbd.free_port(address)
    guest.qmp("nbd-server-start",
              addr={"type": "inet", "data": {"host": address, "port": str(nbd_port)}})
    guest.qmp("nbd-server-add", device=DRIVE, writable=True)
    return f"nbd://{address}:{nbd_port}/{DRIVE}"


def send(guest: Guest, migrate_data: dict[str, str], control: Control,
         timeout: float, pause_copy: bool = False) -> None:
    """On the source; returns once the guest runs on the destination. The disk is
    mirrored when the destination serves one (a volume-backed guest has none); with
    `pause_copy` the guest is paused once the mirror is ready, for the copy of its
    memory (see pauses_for_copy). Aborted, failed or out of time: the mirror and the
    migration are cancelled and the guest runs here as it did before, resumed if the
    migration had paused it (a forced completion, a paused copy, or the pause before the
    switch-over)."""
    deadline = time.monotonic() + timeout
    mirrored = "nbd" in migrate_data
    was_running = guest.status() == "running"
    paused: list[bool] = []

    def pause() -> None:
        if not paused:
            guest.qmp("stop")
            paused.append(True)
            LOG.info("Guest %s paused for the copy of its memory", guest.uuid)

    def check() -> None:
        if control.abort.is_set():
            raise exception.LiveMigrationAborted(instance_uuid=guest.uuid)
        if control.force.is_set():
            pause()
        if time.monotonic() > deadline:
            raise exception.NovaliteException(
                f"The live migration of {guest.uuid} did not finish within {timeout:g}s")

    guest.qmp("migrate-set-capabilities",
              capabilities=[{"capability": "pause-before-switchover", "state": True}])
    guest.qmp("migrate-set-parameters", **{"max-bandwidth": _bandwidth()})
    if mirrored:
        guest.qmp("drive-mirror", **{"job-id": JOB, "device": DRIVE,
                                     "target": migrate_data["nbd"], "format": "raw",
                                     "sync": "top", "mode": "existing"})
    try:
        _until(lambda: not mirrored or bool(_mirror(guest).get("ready")), check)
        if pause_copy:
            pause()
        guest.qmp("migrate", uri=migrate_data["uri"])
        _until(lambda: _progress(guest, check, mirrored), check,
               PAUSED_POLL_S if pause_copy else POLL_S)
    except BaseException:
        _cancel(guest, resume=was_running)
        raise


def _bandwidth() -> int:
    """QEMU's max-bandwidth (bytes/s) for [libvirt] live_migration_bandwidth (MiB/s; 0:
    unbounded, as libvirt leaves it)."""
    return (CONF.libvirt.live_migration_bandwidth or UNBOUNDED_MIB_S) << 20


def pauses_for_copy(accel: str) -> bool:
    """Whether a guest under `accel` is paused while its memory is copied. Under TCG,
    QEMU's tracking of the pages the guest dirties can miss a store: the vCPU thread
    stores through a TLB entry it read before the migration thread marked the page
    clean and sent it, so the destination gets the page without that store. The window
    is a few instructions, unless the vCPU thread is preempted inside it, which on a
    loaded host happens: the guest then crashes on its new host (seen here as a NULL
    dereference in the kernel's hrtimer code, "Attempted to kill the idle task"). A
    paused guest stores nothing; its downtime is the copy, as after a forced
    completion. KVM tracks dirty pages in the kernel, with none of this."""
    return accel == "tcg"


def _progress(guest: Guest, check: Callable[[], None], mirrored: bool) -> bool:
    """One look at the memory copy: True once the guest runs on the destination."""
    status = guest.qmp("query-migrate")
    assert isinstance(status, dict)
    state = status.get("status")
    if state == "pre-switchover":  # paused for us: end the mirror, then switch
        LOG.info("Guest %s paused for the switch-over", guest.uuid)
        if mirrored:
            guest.qmp("block-job-cancel", device=JOB)
            _until(lambda: not _mirror(guest), check, PAUSED_POLL_S)
        guest.qmp("migrate-continue", state="pre-switchover")
    elif state == "completed":
        LOG.info("Live migration of guest %s completed in %s ms, downtime %s ms",
                 guest.uuid, status.get("total-time"), status.get("downtime"))
        return True
    elif state in ("failed", "cancelled"):
        raise exception.NovaliteException(
            f"QEMU's migration of {guest.uuid} {state}: {status.get('error-desc', '')}")
    return False


def _mirror(guest: Guest) -> dict:
    jobs = guest.qmp("query-block-jobs")
    assert isinstance(jobs, list)
    return next((job for job in jobs if job.get("device") == JOB), {})


def _until(done: Callable[[], bool], check: Callable[[], None],
           interval: float = POLL_S) -> None:
    while not done():
        check()
        time.sleep(interval)


def _cancel(guest: Guest, resume: bool) -> None:
    """Cancel the mirror and the migration, wait until both are gone, and run the guest
    again if it ran before (in whatever pause the migration left it: stopped for a
    forced completion, before the switch-over, or after a copy that had finished)."""
    with contextlib.suppress(QMPError):
        guest.qmp("migrate_cancel")
    with contextlib.suppress(QMPError):
        guest.qmp("block-job-cancel", device=JOB, force=True)
    deadline = time.monotonic() + 30
    with contextlib.suppress(QMPError):
        while (_mirror(guest) or _migration_state(guest) == "cancelling") \
                and time.monotonic() < deadline:
            time.sleep(POLL_S)
        if resume and guest.status() != "running":
            guest.qmp("cont")


def _migration_state(guest: Guest) -> str:
    status = guest.qmp("query-migrate")
    return str(status.get("status", "")) if isinstance(status, dict) else ""


def landed(guest: Guest, resume: bool) -> None:
    """On the destination, once the source is done: the export closed, the guest
    running (which gives it its disk), paused again if it was paused before."""
    deadline = time.monotonic() + 30
    while guest.status() == "inmigrate" and time.monotonic() < deadline:
        time.sleep(POLL_S)
    with contextlib.suppress(QMPError):
        guest.qmp("nbd-server-stop")
    guest.qmp("cont")
    LOG.info("Guest %s runs on its new host", guest.uuid)
    if not resume:
        guest.qmp("stop")
