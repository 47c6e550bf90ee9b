"""Routers in namespaces: a guest on a VXLAN project network reaches the outside through
its router's SNAT, the outside reaches it on its floating IP (DNAT) until that is
removed, and a removed router takes its namespace and ports away."""

from __future__ import annotations

from novalite.datapath import bridges, linux, names, routers
from tests.integration.datapath.conftest import guest_namespace, ping

PRIVATE = bridges.Segment("11111111-2222-3333-4444-555555555555", "vxlan", 77, None, 1450)
PUBLIC = bridges.Segment("99999999-2222-3333-4444-555555555555", "flat", None, "public",
                         1500)


def _router(*floating: tuple[str, str]) -> routers.RouterConfig:
    return routers.RouterConfig(
        router_id="r0000000-0000-0000-0000-000000000001",
        interfaces=(routers.RouterPort("rif-port", "fa:16:3e:00:00:01", ("10.0.0.1/26",),
                                       PRIVATE),),
        gateway=routers.RouterPort("rgw-port", "fa:16:3e:00:00:02", ("172.24.4.10/24",),
                                   PUBLIC),
        next_hop="172.24.4.1", floating_ips=floating)


def test_snat_out_floating_ip_in_and_removal(datapath, tmp_path):
    guest = guest_namespace("vm")
    device = bridges.plug_veth("compute1", PRIVATE, "port-vm", guest, "fa:16:3e:00:00:0a")
    linux.ip(guest, "address", "add", "10.0.0.10/26", "dev", device)
    linux.ip(guest, "route", "add", "default", "via", "10.0.0.1")
    network_node = routers.Routers("network", str(tmp_path))
    network_node.ensure_outside(PUBLIC, "172.24.4.1/24")
    network_node.ensure(_router())
    outside = names.outside_namespace()

    assert ping(guest, "172.24.4.1")  # the outside has no route back: only SNAT answers
    assert not ping(outside, "172.24.4.20")

    network_node.ensure(_router(("172.24.4.20", "10.0.0.10")))
    assert ping(outside, "172.24.4.20")

    network_node.ensure(_router())
    assert not ping(outside, "172.24.4.20")
    assert ping(guest, "172.24.4.1")

    network_node.remove(_router().router_id)
    assert network_node.served() == set()
    assert not ping(guest, "172.24.4.1")


def test_an_interface_removed_from_the_router_leaves_it(datapath, tmp_path):
    network_node = routers.Routers("network", str(tmp_path))
    network_node.ensure(_router())
    config = _router()
    network_node.ensure(routers.RouterConfig(config.router_id, (), config.gateway,
                                             config.next_hop))
    namespace = names.router_namespace(config.router_id)
    assert names.namespace_device("rif-port") not in linux.links(namespace)
    assert names.bridge(PRIVATE.network_id) not in linux.links(names.host_namespace("network"))
