"""One all-in-one per state directory: `<state_path>/novalite.lock`.

The all-in-one rewrites the catalog and clouds.yaml and runs the state directory's
database and guests; two of them on one directory would corrupt each other. The lock is
an flock on the file (the kernel drops it when its owner dies, so a crash never leaves a
directory locked), and the file says who holds it: the owner's pid, then, once it serves,
its banner (what `novalite all-in-one --status` prints). A clean exit removes the file; a
file left by a crash names a pid that no longer holds the lock and is taken over.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os

LOG = logging.getLogger(__name__)

LOCK_FILE = "novalite.lock"


class StateDirError(Exception):
    """The state directory cannot be used; the message says why and what to do."""


def _path(state_dir: str) -> str:
    return os.path.join(state_dir, LOCK_FILE)


def _read(path: str) -> tuple[int | None, str]:
    """(the pid the file names, the banner), or (None, "") when there is no file."""
    try:
        with open(path) as f:
            first, _, banner = f.read().partition("\n")
    except FileNotFoundError:
        return None, ""
    return (int(first) if first.strip().isdigit() else None), banner


class StateDirLock:
    """Held from acquire() to release() by the one all-in-one using the directory."""

    def __init__(self, state_dir: str) -> None:
        self.state_dir = state_dir
        self.path = _path(state_dir)
        self._fd: int | None = None

    def acquire(self) -> None:
        try:
            os.makedirs(self.state_dir, exist_ok=True)
            fd = self._lock()
        except OSError as exc:
            raise StateDirError(
                f"cannot use the state directory {self.state_dir}: {exc.strerror}; choose "
                "a writable one with --state-dir DIR (or [DEFAULT] state_path)") from None
        stale, _ = _read(self.path)
        if stale and stale != os.getpid():
            LOG.info("Took over %s from pid %d, which is no longer running", self.path, stale)
        self._fd = fd
        self._write("")

    def _lock(self) -> int:
        """The locked file's descriptor. A file another owner unlinked between our open and
        our flock is not the lock any more: open the new one."""
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                owner, _ = _read(self.path)
                raise StateDirError(
                    f"the state directory {self.state_dir} is in use by another novalite "
                    f"all-in-one (pid {owner or 'unknown'}); stop that one first, or start "
                    "this one with another --state-dir") from None
            try:
                if os.stat(self.path).st_ino == os.fstat(fd).st_ino:
                    return fd
            except FileNotFoundError:
                pass
            os.close(fd)

    def publish(self, banner: str) -> None:
        """What `--status` prints while this process holds the directory."""
        self._write(banner)

    def _write(self, banner: str) -> None:
        assert self._fd is not None
        os.ftruncate(self._fd, 0)
        os.pwrite(self._fd, f"{os.getpid()}\n{banner}".encode(), 0)

    def release(self) -> None:
        if self._fd is None:
            return
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)
        os.close(self._fd)  # closing drops the flock
        self._fd = None


def status(state_dir: str) -> str | None:
    """The banner of the all-in-one running on `state_dir`, or None when none is."""
    path = _path(state_dir)
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:  # held: its owner is running
        pid, banner = _read(path)
        return banner or f"novalite all-in-one (pid {pid}) is starting"
    finally:
        os.close(fd)
    return None
