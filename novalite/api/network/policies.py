"""Neutron's policy rule names and default check strings (neutron/conf/policies), on the
personas of nova/policies/base.py that novalite.api.policy defines. A target carries the
resource's `project_id` and, for ports and subnets, `network:project_id` (the owner of
their network, who may also manage them)."""

from __future__ import annotations

from typing import Any

ADMIN = "rule:context_is_admin"
MEMBER = "rule:project_member_or_admin"
READER = "rule:project_reader_or_admin"
NETWORK_OWNER = "role:member and project_id:%(network:project_id)s"
MEMBER_OR_NET_OWNER = f"{MEMBER} or ({NETWORK_OWNER})"
READER_OR_NET_OWNER = f"{READER} or (role:reader and project_id:%(network:project_id)s)"
ANY = "@"
# Neutron's rule:shared and rule:external (field:networks:shared=True, ...): a target
# carries its network's flags as "True"/"False" (see public())
SHARED_OR_EXTERNAL = "'True':%(shared)s or 'True':%(router:external)s"


def public(network: Any) -> dict[str, str]:
    """A network's (or a subnet's network's) flags for the rules that let everyone read
    shared and external networks and their subnets, as devstack users see them listed."""
    return {"shared": str(bool(network.shared)), "router:external": str(bool(network.external))}


def _crud(name: str, create: str = MEMBER, get: str = READER, update: str = MEMBER,
          delete: str = MEMBER) -> dict[str, str]:
    return {f"create_{name}": create, f"get_{name}": get, f"update_{name}": update,
            f"delete_{name}": delete}


DEFAULTS: dict[str, str] = {
    **_crud("network", get=f"{READER} or {SHARED_OR_EXTERNAL}"),
    "create_network:shared": ADMIN,
    "create_network:router:external": ADMIN,
    "create_network:is_default": ADMIN,
    "create_network:provider:network_type": ADMIN,
    "create_network:provider:physical_network": ADMIN,
    "create_network:provider:segmentation_id": ADMIN,
    "update_network:shared": ADMIN,
    "update_network:router:external": ADMIN,
    "update_network:is_default": ADMIN,
    "get_network:provider:network_type": ADMIN,
    "get_network:provider:physical_network": ADMIN,
    "get_network:provider:segmentation_id": ADMIN,
    **_crud("subnet", create=f"{ADMIN} or ({NETWORK_OWNER})",
            get=f"{READER_OR_NET_OWNER} or {SHARED_OR_EXTERNAL}",
            update=MEMBER_OR_NET_OWNER, delete=MEMBER_OR_NET_OWNER),
    "get_subnetpool": READER,
    **_crud("port", create=MEMBER, get=READER_OR_NET_OWNER, update=MEMBER_OR_NET_OWNER,
            delete=MEMBER_OR_NET_OWNER),
    "create_port:mac_address": f"{ADMIN} or ({NETWORK_OWNER})",
    "create_port:fixed_ips:ip_address": f"{ADMIN} or ({NETWORK_OWNER})",
    "create_port:binding:host_id": ADMIN,
    "create_port:binding:profile": ADMIN,
    "update_port:mac_address": ADMIN,
    "update_port:fixed_ips:ip_address": f"{ADMIN} or ({NETWORK_OWNER})",
    "update_port:binding:host_id": ADMIN,
    "update_port:binding:profile": ADMIN,
    "get_port:binding:vif_type": ADMIN,
    "get_port:binding:vif_details": ADMIN,
    "get_port:binding:host_id": ADMIN,
    "get_port:binding:profile": ADMIN,
    "get_port:resource_request": ADMIN,
    # novalite's: agents report wired ports over HTTP (Neutron's do over RPC, unchecked)
    "update_device_list": ADMIN,
    **_crud("security_group"),
    "create_security_group_rule": MEMBER,
    "get_security_group_rule": READER,
    "delete_security_group_rule": MEMBER,
    **_crud("router"),
    "create_router:external_gateway_info:external_fixed_ips": ADMIN,
    "update_router:external_gateway_info:external_fixed_ips": ADMIN,
    "create_router:external_gateway_info:enable_snat": ADMIN,
    "update_router:external_gateway_info:enable_snat": ADMIN,
    "add_router_interface": MEMBER,
    "remove_router_interface": MEMBER,
    **_crud("floatingip"),
    "create_floatingip:floating_ip_address": ADMIN,
    "get_quota": READER,
    "update_quota": ADMIN,
    "delete_quota": ADMIN,
    "get_availability_zone": ANY,
    "get_extension": ANY,
}
