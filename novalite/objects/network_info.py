"""An instance's network info, in the shape of Nova's network model (nova.network.model):
a list of VIFs, each a port with its network, subnets, fixed IPs and their floating IPs.
It is cached on the instance (`instance_info_caches`) so that listing servers never asks
the network service, and it travels to the compute and the virt driver (part 2's
datapath plugs each VIF into its network's bridge by `devname` and `network.bridge`)."""

from __future__ import annotations

import dataclasses
from typing import Any

from novalite.objects import base


@base.register
class IP(base.NovaliteObject):
    address: str
    type: str = "fixed"  # fixed, floating, gateway, dns
    version: int = 4
    floating_ips: list[IP] = dataclasses.field(default_factory=list)


@base.register
class Subnet(base.NovaliteObject):
    cidr: str
    version: int = 4
    gateway: str | None = None
    ips: list[IP] = dataclasses.field(default_factory=list)
    dns: list[str] = dataclasses.field(default_factory=list)
    routes: list[dict[str, str]] = dataclasses.field(default_factory=list)
    dhcp_enabled: bool = True


@base.register
class Network(base.NovaliteObject):
    id: str
    label: str
    bridge: str
    subnets: list[Subnet] = dataclasses.field(default_factory=list)
    mtu: int | None = None
    project_id: str | None = None
    network_type: str | None = None
    physical_network: str | None = None
    segmentation_id: int | None = None


@base.register
class VIF(base.NovaliteObject):
    id: str
    address: str  # the MAC
    network: Network
    type: str = "unbound"  # binding:vif_type
    details: dict[str, Any] = dataclasses.field(default_factory=dict)
    vnic_type: str = "normal"
    profile: dict[str, Any] = dataclasses.field(default_factory=dict)
    active: bool = False
    # a port the user brought: unbound, not deleted, when the server goes
    preserve_on_delete: bool = False
    security_groups: list[str] = dataclasses.field(default_factory=list)  # their names
    # the user's device tag (Nova's VirtualInterface.tag): not the network service's, so
    # each refresh from the ports keeps it (with_tags)
    tag: str | None = None

    @property
    def devname(self) -> str:
        return f"tap{self.id[:11]}"

    def fixed_ips(self) -> list[IP]:
        return [ip for subnet in self.network.subnets for ip in subnet.ips]


def _ip_json(ip: IP) -> dict[str, Any]:
    found: dict[str, Any] = {"address": ip.address, "type": ip.type, "version": ip.version,
                             "meta": {}}
    if ip.type == "fixed":
        found["floating_ips"] = [_ip_json(f) for f in ip.floating_ips]
    return found


def vif_to_json(vif: VIF) -> dict[str, Any]:
    """Nova's serialised VIF (what its `instance_info_caches.network_info` holds)."""
    net = vif.network
    return {
        "id": vif.id, "address": vif.address, "type": vif.type, "details": vif.details,
        "devname": vif.devname, "ovs_interfaceid": None, "qbh_params": None,
        "qbg_params": None, "active": vif.active, "vnic_type": vif.vnic_type,
        "profile": vif.profile, "preserve_on_delete": vif.preserve_on_delete,
        "delegate_create": True, "meta": {"security_groups": vif.security_groups},
        "tag": vif.tag,
        "network": {
            "id": net.id, "bridge": net.bridge, "label": net.label,
            "meta": {"injected": False, "tenant_id": net.project_id, "mtu": net.mtu,
                     "physical_network": net.physical_network,
                     "tunneled": net.network_type == "vxlan",
                     "segmentation_id": net.segmentation_id,
                     "network_type": net.network_type},
            "subnets": [{
                "cidr": s.cidr, "version": s.version, "routes": s.routes,
                "gateway": {"address": s.gateway, "type": "gateway", "version": s.version,
                            "meta": {}},
                "dns": [{"address": d, "type": "dns", "version": s.version, "meta": {}}
                        for d in s.dns],
                "ips": [_ip_json(ip) for ip in s.ips],
                "meta": {"dhcp_server": None, "enable_dhcp": s.dhcp_enabled},
            } for s in net.subnets],
        },
    }


def _ip_from(data: dict[str, Any]) -> IP:
    return IP(address=data["address"], type=data.get("type", "fixed"),
              version=data.get("version", 4),
              floating_ips=[_ip_from(f) for f in data.get("floating_ips", [])])


def vif_from_json(data: dict[str, Any]) -> VIF:
    net = data["network"]
    meta = net.get("meta", {})
    return VIF(
        id=data["id"], address=data["address"], type=data.get("type", "unbound"),
        details=data.get("details") or {}, vnic_type=data.get("vnic_type", "normal"),
        profile=data.get("profile") or {}, active=bool(data.get("active")),
        preserve_on_delete=bool(data.get("preserve_on_delete")),
        security_groups=list((data.get("meta") or {}).get("security_groups", [])),
        tag=data.get("tag"),
        network=Network(
            id=net["id"], label=net["label"], bridge=net.get("bridge", ""),
            mtu=meta.get("mtu"), project_id=meta.get("tenant_id"),
            network_type=meta.get("network_type"),
            physical_network=meta.get("physical_network"),
            segmentation_id=meta.get("segmentation_id"),
            subnets=[Subnet(cidr=s["cidr"], version=s.get("version", 4),
                            gateway=(s.get("gateway") or {}).get("address"),
                            ips=[_ip_from(ip) for ip in s.get("ips", [])],
                            dns=[d["address"] for d in s.get("dns", [])],
                            routes=s.get("routes", []),
                            dhcp_enabled=s.get("meta", {}).get("enable_dhcp", True))
                     for s in net.get("subnets", [])]))


def with_tags(vifs: list[VIF], tags: dict[str, str]) -> list[VIF]:
    """`vifs` as read from the network service, with the device tags (by port id) the
    cloud kept for them: a refresh of the cache, a move's binding, must not lose them."""
    for vif in vifs:
        vif.tag = tags.get(vif.id, vif.tag)
    return vifs


def in_order(vifs: list[VIF], before: list[VIF]) -> list[VIF]:
    """`vifs` as read from the network service (which lists a server's ports in no
    order of the server's), in the order the server had them, ports new to it last:
    the guest's NICs keep their order (eth0 stays eth0), as Nova's cache keeps it."""
    position = {vif.id: index for index, vif in enumerate(before)}
    return sorted(vifs, key=lambda vif: position.get(vif.id, len(position)))


def to_json(vifs: list[VIF]) -> list[dict[str, Any]]:
    return [vif_to_json(v) for v in vifs]


def from_json(data: list[dict[str, Any]] | None) -> list[VIF]:
    return [vif_from_json(v) for v in data or []]
