"""Ports: a MAC and fixed IPs on a network, the device that uses it and where it is bound.

A port is "bound" once a compute names its host (`binding:host_id`); its vif_type is the
bridge the datapath plugs it into. In a cloud of real guests a bound port is DOWN until
its host reports the device wired (Neutron's agents' update_device_up), then ACTIVE, and
the server's compute hears `network-vif-plugged`; in a simulated cloud no agent wires
anything and a bound, administratively up port is ACTIVE at once."""

from __future__ import annotations

import ipaddress
import uuid
from collections import defaultdict
from typing import Any

from sqlalchemy import insert, select
from sqlalchemy.orm import Session
from sqlalchemy.sql.schema import ColumnDefault

from novalite.conf import CONF
from novalite.db.models import network as m
from novalite.network import (
    common,
    errors,
    ipam,
    macs,
    networks,
    nova_notifier,
    records,
    security_groups,
    subnets,
)
from novalite.network.records import Record
from novalite.network.scope import Scope

COLUMNS = {"name", "admin_state_up", "device_id", "device_owner", "description",
           "dns_name", "port_security_enabled"}
BINDING = {"binding:host_id": "binding_host_id", "binding:profile": "binding_profile",
           "binding:vnic_type": "binding_vnic_type"}
VNIC_TYPES = ("normal", "direct", "macvtap", "baremetal", "direct-physical", "virtio-forwarder",
              "smart-nic", "vdpa", "remote-managed")
ROUTER_OWNERS = ("network:router_interface", "network:router_gateway",
                 "network:router_interface_distributed", "network:ha_router_replicated_interface")
DEFAULTS = {"name": "", "admin_state_up": True, "device_id": "", "device_owner": "",
            "description": "", "dns_name": "", "binding_host_id": ""}
SERVICE_PROJECT = ""  # ports the service makes for routers and floating IPs
_INSERT = insert(m.Port.__table__)


def get(s: Session, scope: Scope, port_id: str) -> m.Port:
    row = s.get(m.Port, port_id)
    if row is None or not (scope.owns(row.project_id) or _owns_network(s, scope, row)):
        raise errors.PortNotFound(port_id=port_id)
    return row


def _owns_network(s: Session, scope: Scope, row: m.Port) -> bool:
    network = s.get(m.Network, row.network_id)
    return network is not None and network.project_id == scope.project_id


def fixed_ips(s: Session, port_ids: list[str]) -> dict[str, list[dict[str, str]]]:
    found: dict[str, list[dict[str, str]]] = defaultdict(list)
    rows = s.execute(select(m.IPAllocation.port_id, m.IPAllocation.subnet_id,
                            m.IPAllocation.ip_address)
                     .where(m.IPAllocation.port_id.in_(port_ids)))
    for port_id, subnet_id, address in rows:
        found[port_id].append({"subnet_id": subnet_id, "ip_address": address})
    for ips in found.values():
        ips.sort(key=lambda ip: (ipaddress.ip_address(ip["ip_address"]).version,
                                 ip["subnet_id"]))
    return found


def record(s: Session, row: m.Port) -> Record:
    return records.port(row, fixed_ips(s, [row.id]).get(row.id, []))


def list_records(s: Session, scope: Scope, equals: dict[str, list[Any]]) -> list[Record]:
    """Ports the caller sees, pre-filtered in SQL on the plain columns given."""
    query = select(m.Port)
    if not scope.is_admin:
        owned_networks = select(m.Network.id).where(m.Network.project_id == scope.project_id)
        query = query.where((m.Port.project_id == scope.project_id)
                            | m.Port.network_id.in_(owned_networks))
    for key, values in equals.items():
        query = query.where(getattr(m.Port, key).in_(values))
    rows = list(s.scalars(query))
    ips = fixed_ips(s, [r.id for r in rows]) if rows else {}
    return [records.port(r, ips.get(r.id, [])) for r in rows]


def hosts_report() -> bool:
    """Whether bound ports wait for their host to report them wired: in a cloud of real
    guests, whose network node this process is (or whose qemu computes the all-in-one
    runs)."""
    return bool(CONF.datapath.network_node or CONF.compute_driver == "qemu")


def _status(s: Session, row: m.Port, rebound: bool) -> None:
    """DOWN unless bound and up; a port bound to another host waits for that host's
    report when hosts report (devices_up). Service ports keep the status their owner
    gives them."""
    if row.device_owner.startswith("network:"):
        return
    bound = bool(row.binding_host_id)
    row.binding_vif_type = "bridge" if bound else "unbound"
    row.binding_vif_details = {"port_filter": True, "connectivity": "l2"} if bound else {}
    was = row.status
    if not bound or not row.admin_state_up or (rebound and hosts_report()):
        row.status = "DOWN"
    elif not hosts_report():
        row.status = "ACTIVE"
    if was == "ACTIVE" and row.status == "DOWN":
        nova_notifier.record(s, row, "network-vif-unplugged")


def devices_up(s: Session, host: str, port_ids: list[str]) -> tuple[list[str], list[str]]:
    """What a host's agent reports wired: those bound to `host` are up (ACTIVE when also
    administratively up, and their server's compute told `network-vif-plugged`); the
    others (bound elsewhere, or gone) failed, as Neutron's update_device_list answers."""
    up, failed = [], []
    for port_id in port_ids:
        row = s.get(m.Port, port_id)
        if row is None or row.binding_host_id != host:
            failed.append(port_id)
            continue
        up.append(port_id)
        if row.admin_state_up and row.status != "ACTIVE":
            row.status = "ACTIVE"
            common.bump(row)
            nova_notifier.record(s, row, "network-vif-plugged")
    return up, failed


def _mac(s: Session, network_id: str, requested: str | None) -> str:
    if requested is None:
        return macs.generate()  # a clash with another port is caught by the unique key
    mac = requested.lower()
    if not macs.valid(mac):
        raise errors.InvalidInput(error_message=f"'{requested}' is not a valid MAC address")
    if s.scalar(select(m.Port.id).where(m.Port.network_id == network_id,
                                        m.Port.mac_address == mac)) is not None:
        raise errors.MacAddressInUse(net_id=network_id, mac=mac)
    return mac


def _address_pairs(pairs: list[dict[str, Any]], mac: str, secured: bool
                   ) -> list[dict[str, Any]]:
    if pairs and not secured:
        raise errors.AddressPairAndPortSecurityRequired()
    found = []
    for pair in pairs:
        try:
            ipaddress.ip_network(pair["ip_address"], strict=False)
        except (KeyError, ValueError, TypeError):
            raise errors.InvalidInput(error_message=f"Invalid allowed address pair {pair}") \
                from None
        found.append({"ip_address": pair["ip_address"],
                      "mac_address": (pair.get("mac_address") or mac).lower()})
    return found


def _groups(s: Session, scope: Scope, project_id: str, requested: list[str] | None,
            secured: bool, owner: str) -> list[str]:
    """The groups asked for, which need port security (ML2 does not check the address
    its message speaks of); none asked for on a new port: the project's default one,
    when secured."""
    if requested is None:
        if not secured or owner.startswith("network:"):
            return []
        return [security_groups.ensure_default(s, project_id)]
    if requested and not secured:
        raise errors.PortSecurityAndIPRequiredForSecurityGroups()
    for group_id in requested:
        security_groups.get(s, scope, group_id)
    return list(dict.fromkeys(requested))


def create(s: Session, scope: Scope, network: m.Network | networks.Brief, project_id: str,
           values: dict[str, Any]) -> Record:
    if project_id != SERVICE_PROJECT:
        common.check_quota(s, project_id, "port")
    port_id = str(uuid.uuid4())
    mac = _mac(s, network.id, values.get("mac_address"))
    secured = values.get("port_security_enabled", network.port_security_enabled)
    owner = values.get("device_owner", "")
    pairs = _address_pairs(values.get("allowed_address_pairs") or [], mac, secured)
    row = m.Port(id=port_id, project_id=project_id, network_id=network.id,
                 mac_address=mac, port_security_enabled=secured,
                 security_groups=_groups(s, scope, project_id,
                                         values.get("security_groups"), secured, owner),
                 allowed_address_pairs=pairs,
                 resource_request=values.get("resource_request"),
                 **{**DEFAULTS, **{k: v for k, v in values.items()
                                   if k in COLUMNS and k != "port_security_enabled"},
                    **{col: values[key] for key, col in BINDING.items() if key in values}})
    _status(s, row, rebound=bool(row.binding_host_id))
    _insert(s, row)  # the port before its addresses (their foreign key)
    ips = ipam.allocate(s, network.id, port_id, mac, values.get("fixed_ips"),
                        subnets.of_network(s, network.id), owner)
    return records.port(row, ips)


def _insert(s: Session, row: m.Port) -> None:
    """Write a new port with a plain INSERT rather than through the session's unit of
    work, which took a quarter of a port create. The row stays outside the session (what
    follows in the transaction reads the port from the database), and the columns the
    create left unset take their defaults on it first, so its record shows what was
    written."""
    values = {}
    for column in m.Port.__table__.columns:
        default = column.default
        if column.key not in row.__dict__ and isinstance(default, ColumnDefault):
            setattr(row, column.key, default.arg(None) if default.is_callable
                    else default.arg)
        values[column.key] = getattr(row, column.key)
    s.execute(_INSERT, values)


def _matches(allocation: m.IPAllocation, entry: dict[str, Any]) -> bool:
    if entry.get("subnet_id") not in (None, allocation.subnet_id):
        return False
    return entry.get("ip_address") in (None, allocation.ip_address)


def _replace_ips(s: Session, row: m.Port, requested: list[dict[str, Any]]) -> None:
    """Keep the addresses still asked for (an entry naming only a subnet keeps the one
    held there) and, but on a router's interface, the SLAAC ones (Neutron removes an
    automatic address only when asked with delete_subnet, which novalite refuses);
    release the others, take the new ones."""
    current = list(s.scalars(select(m.IPAllocation).where(m.IPAllocation.port_id == row.id)))
    on_network = subnets.of_network(s, row.network_id)
    automatic: list[m.IPAllocation] = []
    if ipam.gets_auto_address(row.device_owner):
        slaac = {sub.id for sub in on_network if ipam.is_auto_address(sub)}
        automatic = [a for a in current if a.subnet_id in slaac]
    kept = list(automatic)
    new = []
    for entry in requested:
        if any(_matches(a, entry) for a in automatic):
            continue
        match = next((a for a in current if a not in kept and _matches(a, entry)), None)
        if match is None:
            new.append(entry)
        else:
            kept.append(match)
    for allocation in current:
        if allocation not in kept:
            s.delete(allocation)
    s.flush()
    if new:
        ipam.allocate(s, row.network_id, row.id, row.mac_address, new, on_network,
                      row.device_owner, auto_addresses=False)


def _keeps_floating_addresses(s: Session, row: m.Port, requested: list[dict[str, Any]]
                              ) -> None:
    """New fixed IPs must name each address a floating IP is associated with (Neutron's
    prevent_internal_ip_change_for_fip, before anything else of the update): else the
    floating IP would lead to an address another port can take. An entry naming only
    the subnet is not enough, though it would keep the address."""
    named = {entry.get("ip_address") for entry in requested}
    behind = s.scalars(select(m.FloatingIP.fixed_ip_address).where(
        m.FloatingIP.fixed_port_id == row.id, m.FloatingIP.fixed_ip_address.is_not(None)))
    if any(address not in named for address in behind):
        raise errors.BadRequest(resource="port", msg=(
            f"Cannot update the fixed_ips of the port {row.id}, because its original "
            "fixed_ip has been associated to a floating ip"))


def update(s: Session, scope: Scope, row: m.Port, values: dict[str, Any]) -> Record:
    if "fixed_ips" in values:
        _keeps_floating_addresses(s, row, values["fixed_ips"])
    changes = {k: v for k, v in values.items() if k in COLUMNS}
    changes.update({col: values[key] for key, col in BINDING.items() if key in values})
    secured = values.get("port_security_enabled", row.port_security_enabled)
    rebound = changes.get("binding_host_id", row.binding_host_id) != row.binding_host_id
    if "allowed_address_pairs" in values or not secured:  # checked first, as in ML2
        changes["allowed_address_pairs"] = _address_pairs(
            values.get("allowed_address_pairs", row.allowed_address_pairs) or [],
            row.mac_address, secured)
    if "security_groups" in values:
        changes["security_groups"] = _groups(s, scope, row.project_id,
                                             values["security_groups"], secured,
                                             row.device_owner)
    elif not secured and row.security_groups:
        # the groups must go in the same request (e.g. --no-security-group)
        raise errors.PortSecurityPortHasSecurityGroup()
    if "mac_address" in values and values["mac_address"].lower() != row.mac_address:
        if row.binding_host_id:
            raise errors.Conflict(msg=f"Unable to complete operation on port {row.id}, "
                                      "port is already bound")
        changes["mac_address"] = _mac(s, row.network_id, values["mac_address"])
    common.update(row, changes)
    if "fixed_ips" in values:
        _replace_ips(s, row, values["fixed_ips"])
        common.bump(row)
    if "fixed_ips" in values or "security_groups" in values:
        nova_notifier.record(s, row)
    _status(s, row, rebound)
    s.flush()
    return record(s, row)


def delete(s: Session, row: m.Port, direct: bool = True) -> None:
    """Remove the port and its addresses; floating IPs on it are disassociated. Router
    ports go with their router interface, not through the port API."""
    if direct and row.device_owner in ROUTER_OWNERS:
        raise errors.Conflict(msg=f"Port {row.id} cannot be deleted directly via the port "
                                  f"API: has device owner {row.device_owner}.")
    nova_notifier.record(s, row, "network-vif-deleted")
    for fip in s.scalars(select(m.FloatingIP).where(m.FloatingIP.fixed_port_id == row.id)):
        fip.fixed_port_id = fip.fixed_ip_address = fip.router_id = None
        fip.status = "DOWN"
        common.bump(fip)
    s.flush()
    s.delete(row)
