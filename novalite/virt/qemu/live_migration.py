"""A running guest from one QEMU to another, as libvirt drives it for Nova when the two
hosts share no storage: the destination's QEMU waits for the guest (-incoming defer) and
serves its empty disk over NBD; the source mirrors its disk into that export, then
migrates the memory while the guest runs; paused just before the switch, it ends the
mirror (the disks are identical) and lets QEMU switch over. query-migrate reports the
downtime the guest saw."""

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


@dataclasses.dataclass
class Control:
    """What an admin asks of a migration under way: finish now (the guest pauses so that
    the copy converges) or stop (the guest runs on where it was)."""

    force: threading.Event = dataclasses.field(default_factory=threading.Event)
    abort: threading.Event = dataclasses.field(default_factory=threading.Event)


def receive(guest: Guest, emulator: str) -> dict[str, str]:
    """On the destination (its configuration and empty overlay written): QEMU started to
    receive, its disk exported; where the source sends the disk and the memory."""
    address = CONF.my_ip
    guest.launch(emulator, incoming="defer")
    # the disk stays the export's until the guest is told to run (libvirt's way): else
    # QEMU, taking it at the switch-over, finds the export writing to it and exits
    guest.qmp("migrate-set-capabilities",
              capabilities=[{"capability": "late-block-activate", "state": True}])
    nbd_port = nbd.free_port(address)
    guest.qmp("nbd-server-start",
              addr={"type": "inet", "data": {"host": address, "port": str(nbd_port)}})
    guest.qmp("nbd-server-add", device=DRIVE, writable=True)
    migrate_uri = f"tcp:{address}:{nbd.free_port(address)}"
    guest.qmp("migrate-incoming", uri=migrate_uri)
    return {"nbd": f"nbd://{address}:{nbd_port}/{DRIVE}", "uri": migrate_uri}


def send(guest: Guest, migrate_data: dict[str, str], control: Control,
         timeout: float) -> None:
    """On the source; returns once the guest runs on the destination. Aborted, failed
    or out of time: the mirror and the migration are cancelled and the guest runs here
    as it did before, resumed if the migration had paused it (a forced completion, or
    the pause before the switch-over)."""
    deadline = time.monotonic() + timeout
    was_running = guest.status() == "running"
    paused: list[bool] = []

    def check() -> None:
        if control.abort.is_set():
            raise exception.LiveMigrationAborted(instance_uuid=guest.uuid)
        if control.force.is_set() and not paused:
            guest.qmp("stop")
            paused.append(True)
        if time.monotonic() > deadline:
            raise exception.NovaliteException(
                f"The live migration of {guest.uuid} did not finish within {timeout:g}s")

    guest.qmp("migrate-set-capabilities",
              capabilities=[{"capability": "pause-before-switchover", "state": True}])
    guest.qmp("drive-mirror", **{"job-id": JOB, "device": DRIVE,
                                 "target": migrate_data["nbd"], "format": "raw",
                                 "sync": "top", "mode": "existing"})
    try:
        _until(lambda: bool(_mirror(guest).get("ready")), check)
        guest.qmp("migrate", uri=migrate_data["uri"])
        _until(lambda: _progress(guest, check), check)
    except BaseException:
        _cancel(guest, resume=was_running)
        raise


def _progress(guest: Guest, check: Callable[[], None]) -> bool:
    """One look at the memory copy: True once the guest runs on the destination."""
    status = guest.qmp("query-migrate")
    assert isinstance(status, dict)
    state = status.get("status")
    if state == "pre-switchover":  # paused for us: end the mirror, then switch
        LOG.info("Guest %s paused for the switch-over", guest.uuid)
        guest.qmp("block-job-cancel", device=JOB)
        _until(lambda: not _mirror(guest), check)
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


def _until(done: Callable[[], bool], check: Callable[[], None]) -> None:
    while not done():
        check()
        time.sleep(POLL_S)


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
