"""Interfaces on this host (Nova's attach_interface and detach_interface), mixed into
the compute manager as InterfaceSteps.

The API made or claimed the port in the user's name; here it is bound to this host and
the driver plugs it into the guest (hot-plugged into a running one, kept in what any
later start is made from). A driver that fails leaves the port unbound and raises
InterfaceAttachFailed to the API, which gives the port back. A detach unplugs first
and gives the port back only once the guest let go of it: a guest that does not
(InterfaceDetachFailed) keeps its interface and its port. Either way the instance's
network info cache and tagged devices are saved from what the network service and
the driver now say. Both run under the instance's lock and are recorded as the
action's `compute_attach_interface` / `compute_detach_interface` events, and notified as
Nova's instance.interface_attach.start/.end/.error and interface_detach.start/.end (the
.end shows the ports now in ip_addresses)."""

from __future__ import annotations

import logging
from collections.abc import Callable

from novalite import exception
from novalite.compute import network_errors
from novalite.compute.device_tags import DeviceTagSteps
from novalite.compute.neutron import API as NetworkAPI
from novalite.compute.wrapping import tracked
from novalite.conf import CONF
from novalite.context import RequestContext
from novalite.objects.image import ImageMeta
from novalite.objects.instance import Instance
from novalite.objects.network_info import VIF, in_order, with_tags

LOG = logging.getLogger(__name__)

ATTACH_INTERFACE_EVENT = "compute_attach_interface"
DETACH_INTERFACE_EVENT = "compute_detach_interface"


def image_meta(instance: Instance) -> ImageMeta:
    """The image the guest was made from, as its system metadata remembers it (Nova's
    ImageMeta.from_instance)."""
    return ImageMeta(id=instance.image_ref or "", properties={
        key[len("image_"):]: value for key, value in instance.system_metadata.items()
        if key.startswith("image_")})


class InterfaceSteps(DeviceTagSteps):
    """Mixed into the ComputeManager, whose driver, conductor and network API these
    use."""

    host: str
    network_api: NetworkAPI
    _record_failure: Callable[..., None]  # what `tracked` needs of its host

    @tracked(ATTACH_INTERFACE_EVENT, owns_task=False, reraise=True,
             notify="interface_attach")
    def attach_interface(self, ctx: RequestContext, instance: Instance, port_id: str,
                         tag: str | None, preserve: bool) -> None:
        """RPC call (1.26); `preserve`: the user brought the port (released, not
        deleted, when it goes)."""
        if not self.driver.capabilities.get("supports_attach_interface"):
            raise exception.AttachInterfaceNotSupported(instance_uuid=instance.uuid)
        zone = instance.availability_zone or CONF.default_availability_zone
        self.network_api.bind_port(ctx, port_id, self.host, zone)
        brought = {port_id} if preserve else set()
        vifs = self.network_api.get_instance_nw_info(
            ctx, instance.uuid, instance.preserved_ports() | brought)
        vif = next(v for v in vifs if v.id == port_id)
        try:
            self.driver.attach_interface(ctx, instance, image_meta(instance), vif)
        except Exception as exc:
            LOG.warning("Attaching port %s to instance %s failed: %s", port_id,
                        instance.uuid, exc)
            self.network_api.unbind_port(ctx, port_id)
            raise exception.InterfaceAttachFailed(instance_uuid=instance.uuid) from exc
        self._interfaces_changed(ctx, instance, vifs, {port_id: tag} if tag else {})

    @tracked(DETACH_INTERFACE_EVENT, owns_task=False, notify="interface_detach")
    def detach_interface(self, ctx: RequestContext, instance: Instance, port_id: str
                         ) -> None:
        """RPC cast (1.26)."""
        vifs = self.network_api.get_instance_nw_info(ctx, instance.uuid,
                                                     instance.preserved_ports())
        vif = next((v for v in vifs if v.id == port_id), None)
        if vif is None:  # a detach of the same port that ran first
            raise network_errors.InterfaceNotFound(port_id=port_id, instance=instance.uuid)
        try:
            self.driver.detach_interface(ctx, instance, vif)
        except Exception as exc:
            LOG.warning("Detaching port %s from instance %s failed: %s", port_id,
                        instance.uuid, exc)
            raise exception.InterfaceDetachFailed(instance_uuid=instance.uuid) from exc
        self.network_api.deallocate_port(ctx, port_id, vif.preserve_on_delete)
        self._interfaces_changed(ctx, instance, [v for v in vifs if v.id != port_id], {})

    def _interfaces_changed(self, ctx: RequestContext, instance: Instance,
                            vifs: list[VIF], tags: dict[str, str]) -> None:
        """The cache saved with the tags it had (and a new port's), in the server's
        order; then the guest's tagged devices."""
        instance.network_info = with_tags(in_order(vifs, instance.network_info),
                                          {**instance.port_tags(), **tags})
        self.conductor.instance_info_cache_update(ctx, instance.uuid, instance.network_info)
        self._save_device_metadata(ctx, instance)
