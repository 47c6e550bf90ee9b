"""Floating IPs for the compute API's deprecated proxies (Nova's os-floating-ips,
os-floating-ip-pools and the addFloatingIp/removeFloatingIp actions), in the shape of
the floating IP helpers of nova.network.neutron.API.

Every call is the user's (their token): the network service decides which floating IPs,
pools and ports they see and may change, and its association is the one its own API
makes, so an address associated here is wired into the dataplane like any other. Its
refusals come back as Nova's errors and texts (novalite.compute.network_errors)."""

from __future__ import annotations

import dataclasses
from typing import Any

from oslo_utils import uuidutils

from novalite.clients.neutron import Client, NeutronError
from novalite.compute import network_errors as errors
from novalite.conf import CONF
from novalite.context import RequestContext

FIPS, FIP, NETWORKS = "floatingips", "floatingip", "networks"
# The network service's refusals of an allocation that mean "the pool is exhausted".
_EXHAUSTED = ("IpAddressGenerationFailure", "ExternalIpAddressExhausted")


@dataclasses.dataclass(frozen=True)
class FloatingIP:
    """A floating IP as Nova's proxy shows it: its pool is its external network's name
    (or id), its instance the device of the port it is associated with."""

    id: str
    address: str
    fixed_address: str | None
    port_id: str | None
    pool: str
    instance_id: str | None


def _floating_ip(fip: dict[str, Any], network: dict[str, Any] | None) -> FloatingIP:
    port = fip.get("port_details") or {}
    return FloatingIP(id=fip["id"], address=fip["floating_ip_address"],
                      fixed_address=fip.get("fixed_ip_address"), port_id=fip.get("port_id"),
                      pool=(network or {}).get("name") or fip["floating_network_id"],
                      instance_id=port.get("device_id") or None)


class FloatingIPs:
    def __init__(self, ctx: RequestContext) -> None:
        self.ctx = ctx
        self.client = Client(ctx)

    def _list(self, collection: str, **filters: Any) -> list[dict[str, Any]]:
        try:
            return self.client.list(collection, **filters)
        except NeutronError as exc:
            raise errors.NetworkServiceError(reason=exc.message) from None

    def pools(self) -> list[str]:
        """The external networks the caller sees, by name (or id when unnamed)."""
        return [n["name"] or n["id"] for n in self._list(NETWORKS, **{
            "router:external": "True"})]

    def _shown(self, fip: dict[str, Any]) -> FloatingIP:
        try:
            network = self.client.show(NETWORKS, "network", fip["floating_network_id"])
        except NeutronError as exc:
            if exc.status != 404:
                raise errors.NetworkServiceError(reason=exc.message) from None
            network = None
        return _floating_ip(fip, network)

    def get(self, fip_id: str) -> FloatingIP:
        try:
            return self._shown(self.client.show(FIPS, FIP, fip_id))
        except NeutronError as exc:
            if exc.status == 404:
                raise errors.FloatingIpNotFound(id=fip_id) from None
            raise errors.NetworkServiceError(reason=exc.message) from None

    def by_address(self, address: str) -> FloatingIP:
        found = self._list(FIPS, floating_ip_address=address)
        if not found:
            raise errors.FloatingIpNotFoundForAddress(address=address)
        if len(found) > 1:
            raise errors.FloatingIpMultipleFoundForAddress(address=address)
        return self._shown(found[0])

    def of_project(self) -> list[FloatingIP]:
        """The caller's project's floating IPs (an admin's too: only their project's)."""
        fips = self._list(FIPS, project_id=self.ctx.project_id or "")
        ids = sorted({f["floating_network_id"] for f in fips})
        networks = {n["id"]: n for n in self._list(NETWORKS, id=ids)} if ids else {}
        return [_floating_ip(f, networks.get(f["floating_network_id"])) for f in fips]

    def _pool_id(self, name_or_id: str) -> str:
        key = "id" if uuidutils.is_uuid_like(name_or_id) else "name"
        found = self._list(NETWORKS, **{"router:external": "True", key: name_or_id})
        if not found:
            raise errors.FloatingIpPoolNotFound()
        if len(found) > 1:
            raise errors.FloatingIpPoolAmbiguous(name=name_or_id)
        network_id: str = found[0]["id"]
        return network_id

    def allocate(self, pool: str | None) -> FloatingIP:
        """A new floating IP of the caller's project from `pool`, or from
        [neutron] default_floating_pool when the request names none (Nova's texts then
        name no pool)."""
        network_id = self._pool_id(pool or CONF.neutron.default_floating_pool)
        try:
            made = self.client.create(FIPS, FIP, {"floating_network_id": network_id})
        except NeutronError as exc:
            raise _allocation_refused(exc, pool) from None
        return self._shown(made)

    def release(self, fip: FloatingIP) -> None:
        """Give the address back, associated or not."""
        try:
            self.client.delete(FIPS, fip.id)
        except NeutronError as exc:
            if exc.status == 404:
                raise errors.FloatingIpNotFoundForAddress(address=fip.address) from None
            raise errors.NetworkServiceError(reason=exc.message) from None

    def associate(self, instance_uuid: str, address: str, fixed_address: str) -> FloatingIP:
        """Associate `address` with the server's port holding `fixed_address`, even when
        it is associated elsewhere (it moves, as in Nova); the floating IP as it was."""
        port_id = self._port_with(instance_uuid, fixed_address, address)
        try:
            fip = self.by_address(address)
        except errors.FloatingIpMultipleFoundForAddress as exc:
            raise errors.FloatingIpAssociationFailed(
                address=address, fixed_address=fixed_address, id=instance_uuid,
                error=exc.message) from None
        try:
            self.client.update(FIPS, FIP, fip.id, {"port_id": port_id,
                                                   "fixed_ip_address": fixed_address})
        except NeutronError as exc:
            if exc.status == 409:
                raise errors.FloatingIpRefused(reason=exc.message) from None
            raise errors.FloatingIpAssociationFailed(
                address=address, fixed_address=fixed_address, id=instance_uuid,
                error=exc.message) from None
        return fip

    def _port_with(self, instance_uuid: str, fixed_address: str, address: str) -> str:
        for port in self._list("ports", device_id=instance_uuid):
            if any(ip["ip_address"] == fixed_address for ip in port["fixed_ips"]):
                port_id: str = port["id"]
                return port_id
        raise errors.FloatingIpAssociationFailed(
            address=address, fixed_address=fixed_address, id=instance_uuid,
            error=f"Fixed IP not found for address {fixed_address}.")

    def disassociate(self, fip: FloatingIP) -> None:
        try:
            self.client.update(FIPS, FIP, fip.id, {"port_id": None})
        except NeutronError as exc:
            raise errors.NetworkServiceError(reason=exc.message) from None


def _allocation_refused(exc: NeutronError, pool: str | None) -> Exception:
    if exc.kind in _EXHAUSTED:
        return errors.NoMoreFloatingIps(
            f"No more floating IPs in pool {pool}." if pool else None)
    if exc.kind == "OverQuota":
        return errors.FloatingIpLimitExceeded(
            f"IP allocation over quota in pool {pool}." if pool else None)
    if exc.status == 400:
        return errors.FloatingIpRefused(reason=exc.message)
    return errors.NetworkServiceError(reason=exc.message)
