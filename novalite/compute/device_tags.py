"""The guest's tagged devices on the compute host (Nova's instance.device_metadata,
which its libvirt driver builds from the guest's devices), mixed into the manager as
DeviceTagSteps: the driver says where each NIC and disk is in the guest, the instance's
ports and block device mappings say which the user tagged, and the result is kept on
the instance (through the conductor) for the metadata service and config drive.

It is worked out when the guest is made (in the same update that makes the server
ACTIVE), when a volume or an interface is attached or detached here, and when an API
older than compute RPC 1.26, which attached the port itself, asks
(refresh_device_metadata). A report that fails is logged and
leaves the list as it was: the devices are in the guest either way, and the next
change reports them all again."""

from __future__ import annotations

import logging
from typing import Any

from novalite.conductor.rpcapi import ConductorAPI
from novalite.context import RequestContext
from novalite.locks import KeyedLocks
from novalite.objects import device_metadata
from novalite.objects.instance import Instance
from novalite.virt import driver as virt_driver

LOG = logging.getLogger(__name__)


class DeviceTagSteps:
    """Mixed into the ComputeManager, whose driver and conductor these use."""

    driver: virt_driver.ComputeDriver
    conductor: ConductorAPI
    _locks: KeyedLocks

    def _tagged_devices(self, ctx: RequestContext, instance: Instance,
                        volume_tags: dict[str, str | None] | None = None
                        ) -> list[dict[str, Any]] | None:
        """The guest's tagged devices as the instance keeps them (`volume_tags`: the tag
        of each of its volumes if the caller knows them, else as its mappings say);
        None if the driver or the conductor could not say (the caller keeps what was
        there)."""
        try:
            tags = volume_tags
            if tags is None:
                tags = {bdm.volume_id: bdm.tag for bdm in
                        self.conductor.block_device_mapping_get_all_by_instance(
                            ctx, instance.uuid) if bdm.volume_id}
            nic_tags = instance.nic_tags()
            found = device_metadata.tagged(
                self.driver.guest_devices(instance), nic_tags, tags
            ) if any(nic_tags.values()) or any(tags.values()) else []  # only tagged are listed
        except Exception:
            LOG.exception("Could not read the devices of instance %s", instance.uuid)
            return None
        instance.device_metadata = found
        return device_metadata.to_json(found)

    def _save_device_metadata(self, ctx: RequestContext, instance: Instance,
                              volume_tags: dict[str, str | None] | None = None) -> None:
        """Saved when the list changed (an untagged server's stays empty: no write)."""
        before = device_metadata.to_json(instance.device_metadata or [])
        found = self._tagged_devices(ctx, instance, volume_tags)
        if found is None or found == before:
            return
        try:
            self.conductor.instance_update(ctx, instance.uuid, {"device_metadata": found},
                                           check_task_state=False)
        except Exception:
            LOG.exception("Could not save the devices of instance %s", instance.uuid)

    def refresh_device_metadata(self, ctx: RequestContext, instance: Instance) -> None:
        """RPC (1.23): the API changed the instance's interfaces (`instance` carries its
        network info as it is now)."""
        with self._locks(instance.uuid):
            self._save_device_metadata(ctx, instance)
