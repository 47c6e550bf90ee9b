"""NBD exports of volumes: how the file backend's volumes reach the computes that attach
them (as iSCSI targets are LVM's), with QEMU's own NBD server, `qemu-nbd`.

One export per volume, on a TCP port of its own at [DEFAULT] my_ip: a qemu-nbd that
serves the volume's qcow2 file as the raw disk the guest sees (`--format qcow2`) — a
qcow2 has one writer, so one qemu-nbd — read-only for an `ro` attachment of a volume
that is not multiattach, to any number of clients at once for a multiattach volume
(`--shared=0`: each of its guests connects, as each of a shareable iSCSI target's
initiators logs in), else to two (`--shared=2`: its guest's QEMU and, while the guest
live-migrates, the destination's, which connects as it starts, before the source's
lets go; a third waits), and stays up when its client disconnects
(`--persistent`), so a guest that reboots or whose QEMU restarts connects again. It runs
in a session of its own, outliving the volume service as guests outlive their compute;
its pidfile (`$state_path/volume-exports/<host>/<attachment id>.pid`) lets a restarted
service find it or stop it, and the attachment's recorded connection lets it start one
again on the same port. The export is named for the attachment that started it; the
volume's other attachments (another server's of a multiattach volume, or its own
consumer's second, see novalite.volume.manager) share it, and one of them takes it over
(hand_over) when that attachment goes: it stops with the volume's last attachment."""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import select
import signal
import socket
import subprocess
import time

from novalite import affinity
from novalite.conf import CONF
from novalite.volume import errors

LOG = logging.getLogger(__name__)
QEMU_NBD = "qemu-nbd"
START_TIMEOUT = 30.0
STOP_TIMEOUT = 10.0
TERM_RESEND = 0.25
# a port another process took between our probe and qemu-nbd's bind: try another
BIND_ATTEMPTS = 3
# the clients of a volume that is not multiattach: its guest, and a live migration's
# incoming guest on another host (qemu-nbd serves one by default)
LIVE_CLIENTS = 2


@dataclasses.dataclass(frozen=True)
class Export:
    host: str
    port: int
    name: str


class Exports:
    """The exports of the volume service on `host`."""

    def __init__(self, host: str) -> None:
        self.directory = os.path.join(CONF.state_path, "volume-exports", host)

    def _file(self, attachment_id: str, suffix: str) -> str:
        return os.path.join(self.directory, f"{attachment_id}.{suffix}")

    def start(self, attachment_id: str, path: str, name: str, read_only: bool,
              port: int | None = None, shared: bool = False) -> Export:
        """Serve the qcow2 at `path` as export `name` (on `port` if given: an export
        started again where its client expects it); `shared`: to any number of clients
        at once (a multiattach volume's guests), else to LIVE_CLIENTS."""
        os.makedirs(self.directory, exist_ok=True)
        address = CONF.my_ip
        chosen = port or _free_port(address)
        options = (["--read-only"] if read_only else []) + [
            f"--shared={0 if shared else LIVE_CLIENTS}"]
        done = self._run(attachment_id, path, name, options, address, chosen)
        attempts = 1
        while done.returncode != 0 and port is None and attempts < BIND_ATTEMPTS:
            chosen = _free_port(address)
            done = self._run(attachment_id, path, name, options, address, chosen)
            attempts += 1
        if done.returncode != 0:
            raise errors.ExportError(f"qemu-nbd could not serve {path} on "
                                     f"{address}:{chosen}: {done.stderr.strip()}")
        LOG.info("Exporting %s as %s on %s:%d for attachment %s", path, name, address,
                 chosen, attachment_id)
        return Export(address, chosen, name)

    def _run(self, attachment_id: str, path: str, name: str, options: list[str],
             address: str, port: int) -> subprocess.CompletedProcess[str]:
        argv = [QEMU_NBD, *options, "--fork", "--persistent", "--format", "qcow2",
                "--bind", address, "--port", str(port), "--export-name", name,
                "--pid-file", self._file(attachment_id, "pid"), path]
        try:
            with affinity.unpinned():
                return subprocess.run(argv, capture_output=True, text=True, check=False,
                                      timeout=START_TIMEOUT, start_new_session=True)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise errors.ExportError(f"qemu-nbd could not be run: {exc}") from exc

    def _pid(self, attachment_id: str) -> int | None:
        """The pid of the export's qemu-nbd, if it runs (a recycled pid does not count)."""
        try:
            with open(self._file(attachment_id, "pid")) as found:
                pid = int(found.read().strip())
            with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                argv = cmdline.read()
        except (OSError, ValueError):
            return None
        # its pidfile is in this directory: one a shared export was handed over to
        # (hand_over) is named for another attachment
        ours = b"qemu-nbd" in argv and os.path.join(self.directory, "").encode() in argv
        return pid if ours and _alive(pid) else None

    def running(self, attachment_id: str) -> bool:
        return self._pid(attachment_id) is not None

    def stop(self, attachment_id: str) -> None:
        """Stop the export (its client loses the disk) and forget it; one that is not
        running is not an error (a delete retried after a crash). A qemu-nbd loses a
        SIGTERM that comes while it starts, so it is sent again until it goes; one still
        there after STOP_TIMEOUT is killed."""
        pid = self._pid(attachment_id)
        if pid is not None:
            deadline = time.monotonic() + STOP_TIMEOUT
            while _alive(pid) and time.monotonic() < deadline:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGTERM)
                _wait_gone(pid, TERM_RESEND)
            if _alive(pid):
                LOG.warning("qemu-nbd %d of attachment %s ignored SIGTERM: killed", pid,
                            attachment_id)
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
                if not _wait_gone(pid, STOP_TIMEOUT):
                    raise errors.ExportError(
                        f"qemu-nbd {pid} of attachment {attachment_id} did not stop")
            LOG.info("Stopped the export of attachment %s", attachment_id)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self._file(attachment_id, "pid"))

    def hand_over(self, attachment_id: str, successor_id: str) -> None:
        """The export of `attachment_id`, which another attachment of the volume shares,
        is `successor_id`'s from now on (nothing to do if it was the successor's)."""
        with contextlib.suppress(FileNotFoundError):
            os.replace(self._file(attachment_id, "pid"), self._file(successor_id, "pid"))
            LOG.info("The export of attachment %s is attachment %s's now", attachment_id,
                     successor_id)

    def known(self) -> list[str]:
        """The attachments this host has exported (running or not)."""
        if not os.path.isdir(self.directory):
            return []
        return sorted(name[:-len(".pid")] for name in os.listdir(self.directory)
                      if name.endswith(".pid"))


def _alive(pid: int) -> bool:
    return not _wait_gone(pid, 0)


def _wait_gone(pid: int, timeout: float) -> bool:
    """Whether every thread of the process has ended, waiting up to `timeout` seconds:
    its first thread is a zombie before the others have ended and closed its socket,
    and a pidfd is readable only once they all have. Waiting on it costs nothing while
    it waits; reading each thread's /proc stat every 10 ms instead was 2 % of a volume
    cycle's CPU in a yappi profile of the volume benchmark."""
    try:
        pidfd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        return bool(select.select([pidfd], [], [], timeout)[0])
    finally:
        os.close(pidfd)


def _free_port(address: str) -> int:
    """A port nothing listens on now (qemu-nbd binds it at once)."""
    with socket.socket() as probe:
        probe.bind((address, 0))
        return int(probe.getsockname()[1])
