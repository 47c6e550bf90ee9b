"""Names of the datapath's namespaces, devices and addresses. Linux limits a device name
to 15 characters; a namespace name is a file name. Derived, never stored: any service of
the cloud, or its successor after a crash, computes the same ones."""

from __future__ import annotations

import hashlib
import ipaddress
import os

from novalite.conf import CONF


def digest(text: str, length: int) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:length]


def prefix() -> str:
    """[datapath] namespace_prefix, else one derived from the cloud's database (its
    embedded one: the state directory's)."""
    return CONF.datapath.namespace_prefix or derived_prefix(CONF.state_path,
                                                            CONF.database.connection)


def derived_prefix(state_path: str, connection: str | None = None) -> str:
    """The prefix of the cloud on that database, or with its embedded one in that state
    directory."""
    return f"nl{digest(connection or os.path.abspath(state_path), 6)}"


def underlay_namespace() -> str:
    return f"{prefix()}-underlay"


def host_namespace(host: str) -> str:
    return f"{prefix()}-host-{host}"


def dhcp_namespace(network_id: str) -> str:
    return f"qdhcp-{network_id}-{prefix()}"


def router_namespace(router_id: str) -> str:
    return f"qrouter-{router_id}-{prefix()}"


def outside_namespace() -> str:
    """Where the external networks' upstream gateway stands: "the Internet" as a guest's
    router sees it, and where a client outside the cloud reaches floating IPs from."""
    return f"{prefix()}-outside"


UNDERLAY_BRIDGE = "underlay"
HOST_UNDERLAY_PORT = "ul0"  # the host's end of its veth to the underlay


def underlay_port(host: str) -> str:
    """The underlay's end of a host's veth."""
    return f"ul-{digest(host, 10)}"


def local_ip(host: str) -> ipaddress.IPv4Interface:
    """The host's VXLAN endpoint: [vxlan] local_ip, else an address of the underlay
    derived from the host's name."""
    network = ipaddress.IPv4Network(CONF.datapath.underlay_cidr)
    if CONF.vxlan.local_ip:
        return ipaddress.IPv4Interface(f"{CONF.vxlan.local_ip}/{network.prefixlen}")
    offset = 1 + int(digest(host, 8), 16) % (network.num_addresses - 2)
    return ipaddress.IPv4Interface(f"{network.network_address + offset}/{network.prefixlen}")


def vxlan_device(vni: int) -> str:
    return f"vxlan-{vni}"


def bridge(network_id: str) -> str:
    return f"brq{network_id[:11]}"


PORT_DEVICE, NAMESPACE_DEVICE = "tap", "ns-"


def port_device(port_id: str) -> str:
    """A port's device on the bridge (a guest's tap, or the DHCP server's veth end)."""
    return f"{PORT_DEVICE}{port_id[:11]}"


def namespace_device(port_id: str) -> str:
    """A service port's device inside its own namespace (the DHCP server's): the same
    port id as its other end's."""
    return f"{NAMESPACE_DEVICE}{port_id[:11]}"
