"""Layer 2 on a host, as Neutron's Linux bridge agent lays it out: per network a bridge
`brq<network-id[:11]>` whose uplink carries the network between hosts (a VXLAN device for
vxlan networks; for flat and vlan ones, the host's link to the network's wire on its
physical network in the underlay namespace), and on it the taps of the guests' ports.
A bridge is made with its first port on the host and removed with its last."""

from __future__ import annotations

import collections
import dataclasses
import threading

from novalite.conf import CONF
from novalite.datapath import linux, names, underlay
from novalite.objects.network_info import Network

VXLAN_PORT = 4789
_locks: collections.defaultdict[str, threading.Lock] = collections.defaultdict(threading.Lock)


class UnsupportedNetwork(linux.DatapathError):
    """A network type the datapath cannot carry between hosts (`local`, `geneve`)."""


@dataclasses.dataclass(frozen=True)
class Segment:
    """How a network is carried: what the bridge's uplink is."""

    network_id: str
    network_type: str
    segmentation_id: int | None = None
    physical_network: str | None = None
    mtu: int | None = None

    @classmethod
    def of(cls, network: Network) -> Segment:
        return cls(network.id, network.network_type or "vxlan", network.segmentation_id,
                   network.physical_network, network.mtu)

    @property
    def bridge(self) -> str:
        return names.bridge(self.network_id)


def _physnet_link(host: str, segment: Segment) -> str:
    """The host's end of its link to the segment's wire on its physical network (made if
    missing): a veth to that wire's bridge in the underlay namespace. A VLAN is a wire
    of its own there rather than a tag on a shared one: the machines this runs on may
    have no 802.1Q module, and the separation guests see is the same."""
    namespace, wire = names.host_namespace(host), names.underlay_namespace()
    medium = f"{segment.physical_network}:{segment.segmentation_id or ''}"
    device = f"ph-{names.digest(medium, 8)}"
    if device in linux.links(namespace):
        return device
    bridge, peer = f"pn-{names.digest(medium, 8)}", f"p{names.digest(host + medium, 10)}"
    existing = linux.links(wire)
    if bridge not in existing:
        linux.batch(wire, [f"link add {bridge} type bridge", f"link set {bridge} up"])
    if peer in existing:
        linux.delete_stale_link(wire, peer)
    linux.ip(namespace, "link", "add", device, "type", "veth", "peer", "name", peer,
             "netns", wire)
    linux.batch(wire, [f"link set {peer} master {bridge} up"])
    return device


def _uplink(host: str, segment: Segment) -> tuple[str, list[str]]:
    """The uplink device's name, and the commands that make it if it is missing."""
    if segment.network_type == "vxlan" and segment.segmentation_id is not None:
        device = names.vxlan_device(segment.segmentation_id)
        local = names.local_ip(host).ip
        return device, [f"link add {device} type vxlan id {segment.segmentation_id} "
                        f"group {CONF.vxlan.vxlan_group} dev {names.HOST_UNDERLAY_PORT} "
                        f"local {local} dstport {VXLAN_PORT} ttl 1"]
    if segment.network_type in ("flat", "vlan") and segment.physical_network:
        return _physnet_link(host, segment), []
    raise UnsupportedNetwork(f"network {segment.network_id} is of type "
                             f"{segment.network_type}, which the datapath cannot carry")


def _ensure_bridge(host: str, namespace: str, segment: Segment) -> None:
    existing = linux.links(namespace)
    commands = []
    if segment.bridge not in existing:
        commands += [f"link add {segment.bridge} type bridge", f"link set {segment.bridge} up"]
    uplink, making = _uplink(host, segment)
    if uplink not in existing or linux.master(existing[uplink]) != segment.bridge:
        commands += [line for line in making if uplink not in existing]
        commands.append(f"link set {uplink} master {segment.bridge} up")
    linux.batch(namespace, commands)


def plug_tap(host: str, segment: Segment, port_id: str, mac: str | None = None) -> str:
    """The port's tap on the network's bridge on `host`; its host namespace."""
    namespace = underlay.attach(host)
    tap = names.port_device(port_id)
    with _locks[namespace]:
        _ensure_bridge(host, namespace, segment)
        existing = linux.links(namespace)
        commands = [] if tap in existing else [f"tuntap add dev {tap} mode tap"]
        if mac:
            commands.append(f"link set {tap} address {mac}")
        mtu = f" mtu {segment.mtu}" if segment.mtu else ""
        commands.append(f"link set {tap} master {segment.bridge}{mtu} up")
        linux.batch(namespace, commands)
    return namespace


def plug_veth(host: str, segment: Segment, port_id: str, peer_namespace: str,
              mac: str) -> str:
    """A service's port (the DHCP server's): a veth from the network's bridge on `host`
    into `peer_namespace`, with the port's MAC there; the device's name in it."""
    namespace = underlay.attach(host)
    outside, inside = names.port_device(port_id), names.namespace_device(port_id)
    with _locks[namespace]:
        _ensure_bridge(host, namespace, segment)
        if outside not in linux.links(namespace):
            linux.ip(namespace, "link", "add", outside, "type", "veth", "peer", "name",
                     inside, "netns", peer_namespace)
        mtu = f" mtu {segment.mtu}" if segment.mtu else ""
        linux.batch(namespace, [f"link set {outside} master {segment.bridge}{mtu} up"])
        linux.batch(peer_namespace, [f"link set {inside} address {mac}{mtu} up"])
    return inside


def unplug(host: str, device: str) -> None:
    """Remove a port's device from its bridge on `host`; with the network's last port on
    the host, the bridge and its uplink."""
    namespace = names.host_namespace(host)
    if namespace not in linux.namespaces():
        return
    with _locks[namespace]:
        existing = linux.links(namespace)
        if device not in existing:
            return
        bridge = linux.master(existing.pop(device))
        linux.ip(namespace, "link", "delete", device)
        attached = [name for name, link in existing.items() if linux.master(link) == bridge]
        if bridge is None or any(n.startswith(names.PORT_DEVICE) for n in attached):
            return
        uplinks = [n for n in attached if n.startswith(("vxlan-", "ph-"))]
        linux.batch(namespace, [f"link delete {n}" for n in (bridge, *uplinks)])


def unplug_namespace(host: str, namespace: str) -> None:
    """Unplug every port a service namespace has on the host's bridges (each veth's
    other end there is named for the same port)."""
    if namespace not in linux.namespaces():
        return
    for name in linux.links(namespace):
        if name.startswith(names.NAMESPACE_DEVICE):
            unplug(host, names.PORT_DEVICE + name[len(names.NAMESPACE_DEVICE):])
