"""Running iproute2 in a namespace: the one place the datapath executes commands, so that
errors read the same everywhere and tests can see every command."""

from __future__ import annotations

import contextlib
import json
import logging
import subprocess
from collections.abc import Iterable
from typing import Any

from novalite import affinity

LOG = logging.getLogger(__name__)
TIMEOUT = 30.0
PACKAGES = "iproute2 nftables dnsmasq-base busybox-static"


class DatapathError(RuntimeError):
    """A datapath command failed; the message has the command and what it printed."""


def run(argv: list[str], input_: str | None = None) -> str:
    LOG.debug("datapath: %s", " ".join(argv))
    try:
        with affinity.unpinned():
            done = subprocess.run(argv, input=input_, capture_output=True, text=True,
                                  timeout=TIMEOUT)
    except FileNotFoundError:
        raise DatapathError(f"{argv[0]} is not installed: apt-get install -y {PACKAGES}") \
            from None
    if done.returncode:
        raise DatapathError(f"{' '.join(argv)} failed: {done.stderr.strip()}")
    return done.stdout


def output(argv: list[str]) -> str | None:
    """What a command printed, or None when it failed (asking whether something is
    there)."""
    try:
        return run(argv)
    except DatapathError:
        return None


def ip(namespace: str | None, *args: str) -> str:
    return run(["ip", *(("-n", namespace) if namespace else ()), *args])


def delete_stale_link(namespace: str, name: str) -> None:
    """Delete a veth end a predecessor left behind. The kernel also removes it, a moment
    after its peer's namespace went (a host namespace lost with a reboot), so finding it
    gone by the time of the delete is as good as deleting it."""
    try:
        ip(namespace, "link", "delete", name)
    except DatapathError:
        if name in links(namespace):
            raise


def batch(namespace: str, commands: Iterable[str]) -> None:
    """Several `ip` commands in one process (a plug costs one fork, not ten)."""
    lines = list(commands)
    if lines:
        run(["ip", "-n", namespace, "-batch", "-"], "\n".join(lines) + "\n")


def links(namespace: str) -> dict[str, dict[str, Any]]:
    """The namespace's interfaces by name, with their details (`ip -d -j link`)."""
    return {link["ifname"]: link
            for link in json.loads(ip(namespace, "-d", "-j", "link", "show") or "[]")}


def master(link: dict[str, Any]) -> str | None:
    return link.get("master")


def namespaces() -> set[str]:
    return {entry["name"] for entry in json.loads(run(["ip", "-j", "netns", "list"]) or "[]")}


def add_namespace(name: str) -> bool:
    """Create `name` with its loopback up; False when it was there already (another
    service of the cloud, or a predecessor, made it)."""
    try:
        ip(None, "netns", "add", name)
    except DatapathError as exc:
        if "File exists" not in str(exc):
            raise
        return False
    ip(name, "link", "set", "lo", "up")
    return True


def delete_namespace(name: str) -> None:
    with contextlib.suppress(DatapathError):  # already gone
        ip(None, "netns", "delete", name)


def in_namespace(namespace: str, argv: list[str]) -> list[str]:
    return ["ip", "netns", "exec", namespace, *argv]
