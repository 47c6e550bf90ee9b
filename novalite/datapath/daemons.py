"""The dnsmasq processes the datapath keeps running (a network's DHCP server, a router's
advertisements), each with a directory of its own holding its pid file, the files it
reads and the command line it was started with. What runs is found from there, never
remembered: any service of the cloud, or its successor after a crash, tells whether the
process still runs as wanted, has it reread its files, or replaces it."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import time

from novalite.datapath import linux

ARGV = "argv"  # the command line a daemon was started with


def read(path: str) -> str | None:
    try:
        with open(path) as source:
            return source.read()
    except FileNotFoundError:
        return None


def write(path: str, content: str) -> bool:
    """Replace the file's content atomically; whether it changed."""
    if read(path) == content:
        return False
    with open(f"{path}.tmp", "w") as out:
        out.write(content)
    os.replace(f"{path}.tmp", path)
    return True


def ensure(directory: str, argv: list[str], reread: bool) -> None:
    """Have `argv` (a daemon writing `directory/pid`) run: started if it is not, sent
    SIGHUP when only the files it reads changed (`reread`), restarted when it runs with
    another command line."""
    pid = running(directory)
    if pid is not None and read(os.path.join(directory, ARGV)) == " ".join(argv):
        if reread:
            os.kill(pid, signal.SIGHUP)
        return
    if pid is not None:
        stop(pid)
    linux.run(argv)  # dnsmasq daemonizes once it listens
    write(os.path.join(directory, ARGV), " ".join(argv))


def remove(directory: str) -> None:
    """Stop the directory's daemon, if it runs, and remove its files."""
    pid = running(directory)
    if pid is not None:
        stop(pid)
    shutil.rmtree(directory, ignore_errors=True)


def running(directory: str) -> int | None:
    """The pid of the directory's daemon, if it runs (its pidfile names a live process
    with this directory on its command line)."""
    try:
        pid = int(read(os.path.join(directory, "pid")) or "")
    except ValueError:
        return None
    return pid if directory.encode() in _cmdline(pid) else None


def _cmdline(pid: int) -> bytes:
    """A process's command line; empty once it has exited (a zombie has none)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            return cmdline.read()
    except OSError:
        return b""


def stop(pid: int, timeout: float = 5.0) -> None:
    """SIGTERM, and wait until it is gone (a successor binds the same address)."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while _cmdline(pid) and time.monotonic() < deadline:
        time.sleep(0.02)


def dnsmasq(directory: str, devices: list[str]) -> list[str]:
    """The command line every dnsmasq of the datapath starts from: no DNS, nothing of the
    machine's (its hosts, resolver or configuration), only the given devices, and its
    pid, leases and log in its directory."""
    return ["dnsmasq", "--no-hosts", "--no-resolv", "--port=0", "--conf-file=/dev/null",
            "--user=root", "--bind-interfaces", *(f"--interface={d}" for d in devices),
            "--except-interface=lo", f"--pid-file={directory}/pid",
            f"--dhcp-leasefile={directory}/leases", f"--log-facility={directory}/log"]
