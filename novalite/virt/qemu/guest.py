"""One guest's QEMU process: launching it, finding it again after a compute restart,
asking it things over QMP and stopping it.

A guest is a directory (novalite.virt.qemu.config.GuestPaths) whose `guest.json` says how
to launch it; its process is alive when the pidfile's pid runs a QEMU for this uuid.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time

from novalite import affinity
from novalite.datapath import names, taps
from novalite.objects import states
from novalite.virt.qemu import config as guest_config
from novalite.virt.qemu import consoles
from novalite.virt.qemu.qmp import QMPClient, QMPError

LAUNCH_TIMEOUT = 30.0
EXIT_POLL_S = 0.01
# QMP run states (query-status) as power states; any other counts as paused.
RUN_STATES = {
    "running": states.RUNNING,
    "paused": states.POWER_PAUSED,
    "shutdown": states.SHUTDOWN,
    "guest-panicked": states.CRASHED,
    "internal-error": states.CRASHED,
    "io-error": states.CRASHED,
}


class GuestLaunchFailed(Exception):
    pass


class Guest:
    def __init__(self, uuid: str, directory: str, network_namespace: str = "") -> None:
        """`network_namespace`: where the host's taps are (its NICs' backends)."""
        self.uuid = uuid
        self.paths = guest_config.GuestPaths(directory)
        self.network_namespace = network_namespace
        self.process: subprocess.Popen | None = None  # when this compute started it

    # --- identity ---------------------------------------------------------------------

    def pid(self) -> int | None:
        if self.process is not None:
            return self.process.pid
        try:
            with open(self.paths.pidfile) as pidfile:
                return int(pidfile.read().strip())
        except (OSError, ValueError):
            return None

    def alive(self) -> bool:
        """The QEMU process of this guest runs (a child that exited is reaped here; a
        recycled pid running something else does not count)."""
        if self.process is not None:
            return self.process.poll() is None
        pid = self.pid()
        if pid is None:
            return False
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                argv = cmdline.read()
            with open(f"/proc/{pid}/stat") as stat:
                zombie = stat.read().rsplit(")", 1)[1].split()[0] == "Z"
        except OSError:
            return False
        return not zombie and self.uuid.encode() in argv

    # --- launch -------------------------------------------------------------------------

    def launch(self, emulator: str, incoming: str | None = None) -> None:
        """Start QEMU and return once its monitor answers (the guest's OS boots on).
        Its remote consoles are those the options ask for now (a guest launched before
        they changed keeps its own until it is launched again)."""
        config = guest_config.GuestConfig.load(self.paths.config)
        for stale in (self.paths.qmp, self.paths.pidfile):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(stale)
        with consoles.serial_listener() as serial:
            fds = [taps.open_tap(self.network_namespace, names.port_device(nic["port_id"]))
                   for nic in config.nics]
            serial_fd = serial.fileno() if serial is not None else None
            try:
                self._start(guest_config.command(emulator, config, self.paths, incoming, fds,
                                                 consoles.vnc_listen(), serial_fd),
                            fds + ([serial_fd] if serial_fd is not None else []))
            finally:
                for fd in fds:  # QEMU has its own copies
                    os.close(fd)

    def _start(self, argv: list[str], fds: list[int]) -> None:
        with open(self.paths.qemu_log, "ab") as log:
            log.write(f"--- {time.strftime('%Y-%m-%d %H:%M:%S')} {' '.join(argv)}\n".encode())
            log.flush()
            started = log.tell()
            # its own session: a Ctrl-C to the compute service does not kill the guests
            with affinity.unpinned():
                self.process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log,
                                                stderr=subprocess.STDOUT,
                                                start_new_session=True,
                                                cwd=self.paths.directory, pass_fds=fds)
        deadline = time.monotonic() + LAUNCH_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise GuestLaunchFailed(f"QEMU exited with {self.process.returncode} at "
                                        f"start: {self.log_tail(since=started)}")
            if os.path.exists(self.paths.qmp):
                with contextlib.suppress(QMPError):
                    self.status()
                    return
            time.sleep(0.05)
        self.kill()
        raise GuestLaunchFailed(f"QEMU's monitor did not answer within {LAUNCH_TIMEOUT:g}s: "
                                f"{self.log_tail(since=started)}")

    def log_tail(self, limit: int = 600, since: int = 0) -> str:
        """The end of qemu.log (QEMU's own messages), from offset `since` at most."""
        found = _tail(self.paths.qemu_log, limit, since)
        return "(no qemu.log)" if found is None else found.strip()

    def console_tail(self, limit: int) -> str:
        """The end of console.log: what the guest printed last. A guest that panics or
        powers off ends its QEMU, which writes nothing of why to qemu.log."""
        return _tail(self.paths.console, limit) or ""

    # --- monitor ------------------------------------------------------------------------

    def qmp(self, command: str, **arguments: object) -> object:
        with QMPClient(self.paths.qmp) as client:
            return client.execute(command, **arguments)

    def status(self) -> str:
        return str(self.qmp("query-status")["status"])  # type: ignore[index]

    def power_state(self) -> int:
        if not self.alive():
            return states.POWER_SUSPENDED if os.path.exists(self.paths.saved_state) \
                else states.SHUTDOWN
        try:
            return RUN_STATES.get(self.status(), states.POWER_PAUSED)
        except QMPError:
            return states.NOSTATE

    # --- stopping -----------------------------------------------------------------------

    def wait_exit(self, timeout: float) -> bool:
        """A live migration's source waits here, its guest paused until the destination
        runs it: hence short looks (a look is a wait on a child, or two /proc reads)."""
        deadline = time.monotonic() + timeout
        while self.alive():
            if time.monotonic() >= deadline:
                return False
            time.sleep(EXIT_POLL_S)
        return True

    def kill(self) -> None:
        """Hard power-off: QMP quit, then SIGKILL if QEMU does not go at once."""
        if not self.alive():
            return
        with contextlib.suppress(QMPError):
            self.qmp("quit")
        if not self.wait_exit(5.0):
            pid = self.pid()
            if pid is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            self.wait_exit(5.0)


def _tail(path: str, limit: int, since: int = 0) -> str | None:
    """The last `limit` bytes of the file at `path`, from offset `since` at most; None if
    it cannot be read."""
    try:
        with open(path, "rb") as file:
            file.seek(0, os.SEEK_END)
            file.seek(max(since, file.tell() - limit))
            return file.read().decode("utf-8", errors="replace")
    except OSError:
        return None
