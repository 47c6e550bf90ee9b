"""Compute's side of networking, in the shape of Nova's nova.network.neutron.API: the
network service reached over HTTP only (novalite.clients.neutron), as Nova reaches
Neutron.

- At the API, before a build: `allocate_for_build` resolves the request (`auto`, `none`,
  networks, ports, fixed IPs), creates the ports Nova makes (user's token, so the
  network service judges visibility and quota) and claims the ports the user brought
  (device_id). Any failure undoes what it did, so a refused create leaves no port.
- On the chosen host: `bind` names the host (`binding:host_id`, `device_owner
  compute:<az>`) with the service's credentials; a reschedule `unbind`s first.
- On an interface attach or detach: `bind_port` / `unbind_port` on the host, and
  `deallocate_port` gives one port back as a delete would.
- On delete: `deallocate_for_instance` deletes the ports Nova created and releases the
  ones the user brought (their VIFs say `preserve_on_delete`); a port already gone is
  fine, so doing it twice is harmless.
The result of each is the instance's network info (novalite.objects.network_info),
which the caller caches on the instance."""

from __future__ import annotations

import dataclasses
import logging
from typing import Any

from oslo_utils import uuidutils

from novalite.clients.neutron import Client, NeutronError
from novalite.compute import network_errors as errors
from novalite.context import RequestContext
from novalite.objects.network_info import IP, VIF, Network, Subnet, with_tags

LOG = logging.getLogger(__name__)
PORTS, NETWORKS = "ports", "networks"


@dataclasses.dataclass
class NetworkRequest:
    """One entry of a server create's `networks` (Nova's objects.NetworkRequest)."""

    network_id: str | None = None
    port_id: str | None = None
    address: str | None = None
    tag: str | None = None


Requested = list[NetworkRequest] | str | None  # "auto", "none", or None before 2.37


def _mapped(exc: NeutronError, request: NetworkRequest | None = None) -> Exception:
    """The network service's refusal as Nova words it."""
    if exc.kind == "OverQuota":
        return errors.PortLimitExceeded()
    if exc.kind in ("IpAddressAlreadyAllocated", "IpAddressInUse") and request:
        # Nova names the network where its message says instance (nova.network.neutron)
        return errors.FixedIpAlreadyInUse(address=request.address,
                                          instance_uuid=request.network_id)
    if exc.kind == "IpAddressGenerationFailure":
        return errors.NoMoreFixedIps(net=request.network_id if request else "")
    if exc.kind == "NetworkNotFound" and request:
        return errors.NetworkNotFound(network_id=request.network_id)
    if exc.kind == "PortNotFound" and request:
        return errors.PortNotFound(port_id=request.port_id)
    if exc.kind == "SecurityGroupNotFound":
        return errors.SecurityGroupNotFound(security_group_id=exc.message)
    if exc.status == 400:
        return errors.NetworkRequestInvalid(reason=exc.message)
    return errors.NetworkServiceError(reason=exc.message)


def _available_networks(client: Client, project_id: str, auto: bool) -> list[dict[str, Any]]:
    """What Nova boots on when no network is named (its _get_available_networks): the
    project's own unshared networks and every shared one; for "auto", no external one."""
    external = {"router:external": "False"} if auto else {}
    return (client.list(NETWORKS, project_id=project_id, shared="False", **external)
            + client.list(NETWORKS, shared="True", **external))


def _check_external(ctx: RequestContext, network: dict[str, Any]) -> None:
    """Nova's network:attach_external_network (the admin's): an instance of anyone else
    gets no port on an external network that is not also shared."""
    if network.get("router:external") and not network.get("shared") and not ctx.is_admin:
        raise errors.ExternalNetworkAttachForbidden(network_uuid=network["id"])


def resolve(ctx: RequestContext, requested: Requested, client: Client) -> list[NetworkRequest]:
    if requested == "none":
        return []
    if isinstance(requested, list) and requested:
        return requested
    found = _available_networks(client, ctx.project_id or "", requested == "auto")
    if len(found) > 1:
        raise errors.NetworkAmbiguous()
    if not found and requested == "auto":
        raise errors.UnableToAutoAllocateNetwork(project_id=ctx.project_id)
    for network in found:
        _check_external(ctx, network)
    return [NetworkRequest(network_id=n["id"]) for n in found]


def _check(ctx: RequestContext, client: Client, requests: list[NetworkRequest],
           count: int, boot: bool = True) -> None:
    """Each request usable, the network of a port filled in. `boot`: a create, which
    Nova's validate_networks also wants an address from (a subnet on each network, a
    fixed IP on each port); an interface attach takes either without one."""
    for request in requests:
        if request.port_id:
            _check_port(client, request, count, boot)
        else:
            _check_network(ctx, client, request, count, boot)


def _check_port(client: Client, request: NetworkRequest, count: int, boot: bool) -> None:
    if count > 1:
        raise errors.MultipleInstancesNotApplicable(reason=(
            "Unable to launch multiple instances with a single configured port "
            "ID. Please launch your instance one by one with different ports."))
    try:
        port = client.show(PORTS, "port", request.port_id or "")
    except NeutronError as exc:
        raise _mapped(exc, request) from None
    if port.get("device_id"):
        raise errors.PortInUse(port_id=request.port_id)
    # a port whose address comes later (deferred) or never (none) is Neutron's choice
    if boot and not port.get("fixed_ips") and port.get("ip_allocation") not in (
            "deferred", "none"):
        raise errors.PortRequiresFixedIP(port_id=request.port_id)
    request.network_id = port["network_id"]


def _check_network(ctx: RequestContext, client: Client, request: NetworkRequest,
                   count: int, boot: bool) -> None:
    if request.address and count > 1:
        raise errors.MultipleInstancesNotApplicable(reason=(
            "max_count cannot be greater than 1 if an fixed_ip is specified."))
    try:
        network = client.show(NETWORKS, "network", request.network_id or "")
    except NeutronError as exc:
        raise _mapped(exc, request) from None
    if boot and not network.get("subnets"):
        raise errors.NetworkRequiresSubnet(network_uuid=network["id"])
    _check_external(ctx, network)


def _group_ids(client: Client, project_id: str, names: list[str]) -> list[str]:
    """Nova's _process_security_groups: the groups a create names, by id or by name,
    among those of the new server's project (the request's); a name the project uses
    twice needs an id."""
    groups = client.list("security-groups", project_id=project_id, fields=["id", "name"])
    ids = {g["id"] for g in groups}
    found = []
    for name in names:
        named = [name] if name in ids else [g["id"] for g in groups if g["name"] == name]
        if len(named) > 1:
            raise errors.NoUniqueMatch(f"Multiple security groups found matching '{name}'. "
                                       "Use an ID to be more specific.")
        if not named:
            raise errors.SecurityGroupNotFound(security_group_id=name)
        found.append(named[0])
    return found


def _requested_groups(ctx: RequestContext, client: Client, names: list[str] | None
                      ) -> list[str] | None:
    """The ports' groups; none named, or only `default`, leaves them to the network
    service, which gives the project's own default (Nova's _clean_security_groups)."""
    if not names or names == ["default"]:
        return None
    return _group_ids(client, ctx.project_id or "", names)


class API:
    # --- at the API ------------------------------------------------------------------

    def allocate_for_build(self, ctx: RequestContext, instance_uuids: list[str],
                           requested: Requested, security_groups: list[str] | None = None
                           ) -> dict[str, list[VIF]]:
        """The ports of each new instance, made or claimed now; all undone on failure."""
        client = Client(ctx)
        requests = resolve(ctx, requested, client)
        if not requests:
            return {uuid: [] for uuid in instance_uuids}
        # Nova wants an address only from what the request names, not from the
        # network it picked
        _check(ctx, client, requests, len(instance_uuids),
               boot=isinstance(requested, list) and bool(requested))
        groups = _requested_groups(ctx, client, security_groups)
        made: list[str] = []
        claimed: list[str] = []
        try:
            return {uuid: self._ports_for(ctx, client, uuid, requests, groups, made, claimed)
                    for uuid in instance_uuids}
        except BaseException:
            self._undo(client, made, claimed)
            raise

    def _ports_for(self, ctx: RequestContext, client: Client, uuid: str,
                   requests: list[NetworkRequest], groups: list[str] | None,
                   made: list[str], claimed: list[str]) -> list[VIF]:
        ports, preserve, tags = [], set(), {}
        for request in requests:
            try:
                if request.port_id:
                    port = client.update(PORTS, "port", request.port_id, {"device_id": uuid})
                    claimed.append(port["id"])
                    preserve.add(port["id"])
                else:
                    values: dict[str, Any] = {"network_id": request.network_id,
                                              "device_id": uuid,
                                              "project_id": ctx.project_id}
                    if request.address:
                        values["fixed_ips"] = [{"ip_address": request.address}]
                    if groups is not None:
                        values["security_groups"] = groups
                    port = client.create(PORTS, "port", values)
                    made.append(port["id"])
            except NeutronError as exc:
                raise _mapped(exc, request) from None
            ports.append(port)
            if request.tag:
                tags[port["id"]] = request.tag
        return with_tags(network_info(client, ports, preserve), tags)

    @staticmethod
    def _undo(client: Client, made: list[str], claimed: list[str]) -> None:
        for port_id in made:
            _quietly(client.delete, PORTS, port_id)
        for port_id in claimed:
            _quietly(client.update, PORTS, "port", port_id, {"device_id": ""})

    # --- on the compute host ---------------------------------------------------------

    def bind(self, ctx: RequestContext, instance_uuid: str, host: str, zone: str,
             preserve: set[str]) -> list[VIF]:
        """Bind the instance's ports to `host`; its network info as the service says."""
        admin = Client(ctx, admin=True)
        bound = [admin.update(PORTS, "port", port["id"], {
                     "binding:host_id": host, "device_owner": f"compute:{zone}"})
                 for port in admin.list(PORTS, device_id=instance_uuid)]
        return network_info(admin, bound, preserve)

    def unbind(self, ctx: RequestContext, instance_uuid: str) -> None:
        """Leave the ports to the next host (a reschedule) or to the delete."""
        admin = Client(ctx, admin=True)
        for port in admin.list(PORTS, device_id=instance_uuid):
            if port.get("binding:host_id"):
                _quietly(admin.update, PORTS, "port", port["id"], {"binding:host_id": ""})

    def deallocate_for_instance(self, ctx: RequestContext, instance_uuid: str,
                                preserve: set[str]) -> None:
        admin = Client(ctx, admin=True)
        for port in admin.list(PORTS, device_id=instance_uuid):
            if port["id"] in preserve:
                _quietly(admin.update, PORTS, "port", port["id"], {
                    "device_id": "", "device_owner": "", "binding:host_id": ""})
            else:
                _quietly(admin.delete, PORTS, port["id"])

    def bind_port(self, ctx: RequestContext, port_id: str, host: str, zone: str) -> None:
        """One port attached to a server on `host` (an interface attach)."""
        Client(ctx, admin=True).update(PORTS, "port", port_id, {
            "binding:host_id": host, "device_owner": f"compute:{zone}"})

    def unbind_port(self, ctx: RequestContext, port_id: str) -> None:
        """A port whose attach failed on the host, left to the API to give back."""
        _quietly(Client(ctx, admin=True).update, PORTS, "port", port_id,
                 {"binding:host_id": ""})

    def deallocate_port(self, ctx: RequestContext, port_id: str, preserve: bool) -> None:
        """One port off its server (an interface detached, or an attach undone): the
        user's own released, one made for the server deleted."""
        admin = Client(ctx, admin=True)
        if preserve:
            _quietly(admin.update, PORTS, "port", port_id, {
                "device_id": "", "device_owner": "", "binding:host_id": ""})
        else:
            _quietly(admin.delete, PORTS, port_id)

    def get_instance_nw_info(self, ctx: RequestContext, instance_uuid: str,
                             preserve: set[str]) -> list[VIF]:
        admin = Client(ctx, admin=True)
        return network_info(admin, admin.list(PORTS, device_id=instance_uuid), preserve)


def _quietly(call: Any, *args: Any) -> None:
    """A port already gone (deleted by a concurrent cleanup) is the result we wanted."""
    try:
        call(*args)
    except NeutronError as exc:
        if exc.status != 404:
            raise


def network_info(client: Client, ports: list[dict[str, Any]], preserve: set[str]
                 ) -> list[VIF]:
    """The VIFs of `ports`, with their networks, subnets and floating IPs, read in three
    requests whatever the number of ports."""
    if not ports:
        return []
    net_ids = sorted({p["network_id"] for p in ports})
    networks = {n["id"]: n for n in client.list(NETWORKS, id=net_ids)}
    subnet_ids = sorted({ip["subnet_id"] for p in ports for ip in p["fixed_ips"]})
    subnets = {s["id"]: s for s in client.list("subnets", id=subnet_ids)} if subnet_ids \
        else {}
    group_ids = sorted({g for p in ports for g in p.get("security_groups", [])})
    groups = {g["id"]: g["name"] for g in client.list("security-groups", id=group_ids)} \
        if group_ids else {}
    floating: dict[tuple[str, str], list[IP]] = {}
    for fip in client.list("floatingips", port_id=[p["id"] for p in ports]):
        floating.setdefault((fip["port_id"], fip["fixed_ip_address"]), []).append(
            IP(address=fip["floating_ip_address"], type="floating", version=4))
    return [_vif(p, networks.get(p["network_id"], {}), subnets, floating, preserve, groups)
            for p in ports]


def _vif(port: dict[str, Any], net: dict[str, Any], subnets: dict[str, dict[str, Any]],
         floating: dict[tuple[str, str], list[IP]], preserve: set[str],
         groups: dict[str, str]) -> VIF:
    by_subnet: dict[str, Subnet] = {}
    for fixed in port["fixed_ips"]:
        sub = subnets.get(fixed["subnet_id"], {})
        subnet = by_subnet.setdefault(fixed["subnet_id"], Subnet(
            cidr=sub.get("cidr", ""), version=sub.get("ip_version", 4),
            gateway=sub.get("gateway_ip"), dns=list(sub.get("dns_nameservers", [])),
            routes=list(sub.get("host_routes", [])),
            dhcp_enabled=sub.get("enable_dhcp", True)))
        subnet.ips.append(IP(address=fixed["ip_address"], version=subnet.version,
                             floating_ips=floating.get((port["id"], fixed["ip_address"]),
                                                       [])))
    network = Network(id=port["network_id"], label=net.get("name", ""),
                      bridge=f"brq{port['network_id'][:11]}",
                      subnets=list(by_subnet.values()), mtu=net.get("mtu"),
                      project_id=net.get("project_id"),
                      network_type=net.get("provider:network_type"),
                      physical_network=net.get("provider:physical_network"),
                      segmentation_id=net.get("provider:segmentation_id"))
    return VIF(id=port["id"], address=port["mac_address"], network=network,
               type=port.get("binding:vif_type", "unbound"),
               details=port.get("binding:vif_details") or {},
               vnic_type=port.get("binding:vnic_type", "normal"),
               profile=port.get("binding:profile") or {},
               active=port.get("status") == "ACTIVE",
               preserve_on_delete=port["id"] in preserve,
               security_groups=[groups.get(g, g) for g in port.get("security_groups", [])])


class ServerNetworking:
    """What the compute API's proxies do for a user on a running server: fixed IPs,
    security groups and interfaces (Nova's multinic actions, os-security-groups actions
    and os-interface), each with the user's token (floating IPs:
    novalite.compute.floating_ips)."""

    def __init__(self, ctx: RequestContext, instance_uuid: str) -> None:
        self.ctx, self.uuid = ctx, instance_uuid
        self.client = Client(ctx)

    def ports(self) -> list[dict[str, Any]]:
        return self.client.list(PORTS, device_id=self.uuid)

    def add_fixed_ip(self, network_id: str) -> None:
        """Nova's add_fixed_ip_to_instance: one more address, from the network's first
        subnet that still has one, on the server's port on that network."""
        subnets = self.client.list("subnets", network_id=network_id)
        for port in [p for p in self.ports() if p["network_id"] == network_id]:
            for subnet in subnets:
                try:
                    self.client.update(PORTS, "port", port["id"], {"fixed_ips": [
                        *port["fixed_ips"], {"subnet_id": subnet["id"]}]})
                    return
                except NeutronError as exc:
                    LOG.debug("No address from subnet %s for port %s: %s", subnet["id"],
                              port["id"], exc.message)
        raise errors.NetworkNotFoundForInstance(instance_id=self.uuid)

    def remove_fixed_ip(self, address: str) -> None:
        """Nova's remove_fixed_ip_from_instance: the address off the port that has it."""
        for port in self.ports():
            kept = [ip for ip in port["fixed_ips"] if ip["ip_address"] != address]
            if len(kept) < len(port["fixed_ips"]):
                self.client.update(PORTS, "port", port["id"], {"fixed_ips": kept})
                return
        raise errors.FixedIpNotFoundForSpecificInstance(instance_uuid=self.uuid, ip=address)

    def _group(self, name: str) -> dict[str, Any]:
        """Nova's add_to_instance/remove_from_instance (neutronclient's
        find_resourceid_by_name_or_id): an id the caller sees, else a name in the
        caller's project, which must be there once."""
        if uuidutils.is_uuid_like(name):
            by_id = self.client.list("security-groups", id=name)
            if by_id:
                return by_id[0]
        named = self.client.list("security-groups", name=name,
                                 project_id=self.ctx.project_id or "")
        if len(named) > 1:
            raise errors.NoUniqueMatch(f"Multiple security_group matches found for name "
                                       f"'{name}', use an ID to be more specific.")
        if not named:
            raise errors.SecurityGroupNotFoundForProject(name=name,
                                                         project=self.ctx.project_id)
        return named[0]

    def _ports_for_groups(self) -> list[dict[str, Any]]:
        ports = self.ports()
        if not ports:
            raise errors.InstanceHasNoPorts(instance_uuid=self.uuid)
        return ports

    def add_security_group(self, name: str) -> None:
        group, ports = self._group(name), self._ports_for_groups()
        if all(group["id"] in p["security_groups"] for p in ports):
            raise errors.SecurityGroupExistsForInstance(name=name, instance=self.uuid)
        for port in ports:
            if group["id"] not in port["security_groups"]:
                self._set_groups(port, [*port["security_groups"], group["id"]])

    def remove_security_group(self, name: str) -> None:
        group, ports = self._group(name), self._ports_for_groups()
        if not any(group["id"] in p["security_groups"] for p in ports):
            raise errors.SecurityGroupNotExistsForInstance(name=name, instance=self.uuid)
        for port in ports:
            self._set_groups(port, [g for g in port["security_groups"] if g != group["id"]])

    def _set_groups(self, port: dict[str, Any], groups: list[str]) -> None:
        try:
            self.client.update(PORTS, "port", port["id"], {"security_groups": groups})
        except NeutronError as exc:
            raise _mapped(exc) from None

    def security_groups(self) -> list[dict[str, Any]]:
        ids = {g for p in self.ports() for g in p["security_groups"]}
        return [g for g in self.client.list("security-groups") if g["id"] in ids]

    def attach(self, request: NetworkRequest) -> tuple[dict[str, Any], bool]:
        """A new interface: the user's port claimed (True: kept when it goes), or one
        made on the network; its host's compute binds and plugs it."""
        made: list[str] = []
        claimed: list[str] = []
        _check(self.ctx, self.client, [request], 1, boot=False)
        try:
            vifs = API()._ports_for(self.ctx, self.client, self.uuid, [request], None, made,
                                    claimed)
        except BaseException:
            API._undo(self.client, made, claimed)
            raise
        return self.client.show(PORTS, "port", vifs[0].id), bool(claimed)

    def check_attached(self, port_id: str) -> None:
        if port_id not in {p["id"] for p in self.ports()}:
            raise errors.InterfaceNotFound(port_id=port_id, instance=self.uuid)
