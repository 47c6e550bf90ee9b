"""The datapath's tests build real namespaces, bridges, VXLAN and dnsmasq under a prefix
of their own, remove them afterwards, and check that the machine's own namespace is as it
was (no interface, route or firewall rule left behind or changed)."""

from __future__ import annotations

import subprocess
import uuid
from pathlib import Path

import pytest

from novalite.datapath import linux, names, teardown
from tests import services


@pytest.fixture
def datapath(conf):
    """CONF with a namespace prefix of the test's own."""
    services.require_datapath()
    before = services.root_namespace()
    conf.set_override("namespace_prefix", f"nlt{uuid.uuid4().hex[:6]}", group="datapath")
    yield conf
    teardown.remove_all()
    assert teardown.owned_namespaces() == []
    assert services.root_namespace() == before


def guest_namespace(name: str) -> str:
    """A namespace standing for a guest (its end of a veth is its NIC); removed with the
    rest by teardown.remove_all, being named under the prefix."""
    namespace = f"{names.prefix()}-guest-{name}"
    linux.add_namespace(namespace)
    return namespace


def dhcp_client(namespace: str, device: str, script_dir: Path, tries: int = 10) -> str:
    """What busybox udhcpc obtains on `device` within `tries`, as "ip/mask router mtu"
    (its script only prints: it configures nothing)."""
    script = script_dir / "udhcpc.sh"
    script.write_text('#!/bin/sh\n[ "$1" = bound ] && echo "$ip/$mask $router $mtu"\nexit 0\n')
    script.chmod(0o755)
    return linux.run(linux.in_namespace(namespace, [
        "busybox", "udhcpc", "-i", device, "-n", "-q", "-f", "-t", str(tries), "-T", "1",
        "-O", "mtu", "-s", str(script)])).strip()


def ping(namespace: str, address: str, source: str | None = None) -> bool:
    """Whether one echo from `namespace` (from `source`, if given) is answered."""
    sent_from = ["-I", source] if source else []
    done = subprocess.run(linux.in_namespace(namespace, [
        "busybox", "ping", "-c", "1", "-W", "2", *sent_from, address]), capture_output=True)
    return done.returncode == 0
