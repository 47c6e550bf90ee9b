"""devstack's network layout, made on a new cloud's first start so that a user finds what
a devstack user finds: `public` (external, flat on physical network `public`, subnet
172.24.4.0/24), `private` in the demo project (subnet 10.0.0.0/26 with DHCP) and the
demo project's `router1` joining them. Made once: a cloud that already has networks (or
whose admin deleted these) is left alone."""

from __future__ import annotations

import logging

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from novalite.db.models import network as m
from novalite.network import networks, routers, subnets, transaction
from novalite.network.scope import ADMIN, Scope

LOG = logging.getLogger(__name__)


def _make(s: Session, admin_project: str, demo_project: str) -> bool:
    if s.scalar(select(func.count()).select_from(m.Network)):
        return False
    public = networks.create(s, admin_project, {"name": "public"}, {
        "network_type": "flat", "physical_network": "public"}, external=True)
    subnets.create(s, networks.get(s, ADMIN, public["id"]), admin_project, {
        "name": "public-subnet", "cidr": "172.24.4.0/24", "ip_version": 4,
        "gateway_ip": "172.24.4.1", "enable_dhcp": False})
    private = networks.create(s, demo_project, {"name": "private"}, {})
    private_subnet = subnets.create(s, networks.get(s, ADMIN, private["id"]), demo_project, {
        "name": "private-subnet", "cidr": "10.0.0.0/26", "ip_version": 4,
        "gateway_ip": "10.0.0.1", "enable_dhcp": True})
    demo = Scope(demo_project)
    router = routers.create(s, demo, demo_project, {
        "name": "router1", "external_gateway_info": {"network_id": public["id"]}})
    routers.add_interface(s, demo, routers.get(s, demo, router["id"]),
                          {"subnet_id": private_subnet["id"]})
    return True


def ensure(admin_project: str, demo_project: str) -> None:
    if transaction.write(lambda s: _make(s, admin_project, demo_project)):
        LOG.info("Created devstack's networks: public 172.24.4.0/24 (external), private "
                 "10.0.0.0/26 (project demo) and router1")
