"""The wire between hosts: a bridge in the cloud's underlay namespace, and each host's
namespace joined to it by a veth with the host's VXLAN endpoint address. Two compute
services on one machine are then two hosts on one network, as on a real cloud."""

from __future__ import annotations

import threading

from novalite.datapath import linux, names

_lock = threading.Lock()


def _ensure_underlay() -> str:
    namespace = names.underlay_namespace()
    linux.add_namespace(namespace)
    if names.UNDERLAY_BRIDGE not in linux.links(namespace):
        # no snooping: the VXLAN multicast floods reach every host without IGMP
        linux.batch(namespace, [
            f"link add {names.UNDERLAY_BRIDGE} type bridge mcast_snooping 0",
            f"link set {names.UNDERLAY_BRIDGE} up"])
    return namespace


def attach(host: str) -> str:
    """The host's namespace, on the underlay with its address (made if missing)."""
    namespace = names.host_namespace(host)
    with _lock:
        underlay = _ensure_underlay()
        linux.add_namespace(namespace)
        if names.HOST_UNDERLAY_PORT in linux.links(namespace):
            return namespace
        peer = names.underlay_port(host)
        if peer in linux.links(underlay):  # half made by a predecessor that died
            linux.delete_stale_link(underlay, peer)
        linux.ip(namespace, "link", "add", names.HOST_UNDERLAY_PORT, "type", "veth",
                 "peer", "name", peer, "netns", underlay)
        linux.batch(underlay, [f"link set {peer} master {names.UNDERLAY_BRIDGE} up"])
        linux.batch(namespace, [
            f"address add {names.local_ip(host)} dev {names.HOST_UNDERLAY_PORT}",
            f"link set {names.HOST_UNDERLAY_PORT} up"])
    return namespace


def detach(host: str) -> None:
    """Remove the host's namespace (its veth goes with it); the underlay goes with the
    last host."""
    with _lock:
        linux.delete_namespace(names.host_namespace(host))
        prefix = f"{names.prefix()}-host-"
        if not any(ns.startswith(prefix) for ns in linux.namespaces()):
            linux.delete_namespace(names.underlay_namespace())
