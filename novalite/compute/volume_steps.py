"""Volumes on the compute host (Nova's ComputeManager.attach_volume and detach_volume,
and their share of a server's delete and of the service's start), mixed into the manager
as VolumeSteps. The volume service is reached over HTTP (novalite.clients.cinder) with
the service's credentials; the mappings through the conductor.

Attach (the API reserved the volume and recorded the mapping with its attachment): this
host's connector goes to the volume service, which exports the volume and answers the
connection; the driver connects it to the guest; the connection is saved on the mapping;
the attachment is completed (the volume is `in-use`). A failure at any step undoes the
steps before it (the device unplugged, the attachment deleted, the mapping destroyed):
the volume is `available` again and the instance has a fault saying why.

Detach (the API moved the volume to `detaching`): the driver removes the device once the
guest let go of it, the attachment is deleted (the export stops: `available`), the
mapping destroyed. A guest that does not let go keeps the volume: it is `in-use` again
and the instance has a fault.

At the service's start, each of its instances' mappings is made whole again with the
volume service (Nova's init_host and _delete_dangling_bdms): an attach the restart
interrupted before its connection was saved is undone, one interrupted after is
completed, a detach under way is finished, a mapping whose attachment is gone is
dropped and an attachment of the instance that no mapping names is deleted; so no
volume stays `attaching` or `detaching` and no mapping is left without its attachment.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterator
from typing import Any

from novalite import exception
from novalite.clients import cinder
from novalite.compute import multiattach
from novalite.compute.wrapping import tracked
from novalite.conductor.rpcapi import ConductorAPI
from novalite.context import RequestContext
from novalite.exception import NovaliteException
from novalite.locks import KeyedLocks
from novalite.objects import states
from novalite.objects.block_device import BlockDeviceMapping
from novalite.objects.instance import Instance
from novalite.virt import driver as virt_driver

LOG = logging.getLogger(__name__)

ATTACH_VOLUME_EVENT = "compute_attach_volume"
DETACH_VOLUME_EVENT = "compute_detach_volume"
EXTEND_VOLUME_EVENT = "compute_extend_volume"
GiB = 1024 ** 3


@contextlib.contextmanager
def _logged(what: str, *args: object) -> Iterator[None]:
    """A clean-up step that must not hide the failure it cleans up after, nor stop the
    steps after it: its own failure is logged."""
    try:
        yield
    except Exception:
        LOG.exception("Could not " + what, *args)


@contextlib.contextmanager
def _step(lenient: bool, what: str, *args: object) -> Iterator[None]:
    """One volume's share of a step over all of them: its failure logged, then raised,
    or, if `lenient` (the clean-up of a failure), the other volumes' shares go on."""
    try:
        yield
    except Exception:
        LOG.exception("Could not " + what, *args)
        if not lenient:
            raise


def _device(bdm: BlockDeviceMapping) -> dict[str, Any]:
    """What the driver knows the volume by: its connection, and its id as the serial
    (only the serial, for a mapping whose connection was never saved)."""
    return {**(bdm.connection_info or {}), "serial": bdm.volume_id}


class VolumeSteps:
    """Mixed into the ComputeManager, whose services these are."""

    host: str
    driver: virt_driver.ComputeDriver
    conductor: ConductorAPI
    _locks: KeyedLocks
    _record_failure: Callable[..., None]  # what `tracked` needs of its host
    _save_device_metadata: Callable[..., None]  # DeviceTagSteps

    def _mapping(self, ctx: RequestContext, bdm: BlockDeviceMapping
                 ) -> tuple[BlockDeviceMapping | None, dict[str, str | None]]:
        """The mapping as it is now, if it is still the one the API sent, and the tag of
        each volume the instance maps (what its device metadata says of its volumes)."""
        mappings = self.conductor.block_device_mapping_get_all_by_instance(
            ctx, bdm.instance_uuid)
        tags = {found.volume_id: found.tag for found in mappings if found.volume_id}
        for found in mappings:
            if found.uuid == bdm.uuid and found.attachment_id == bdm.attachment_id:
                return found, tags
        LOG.info("Volume %s of instance %s: its mapping is gone or changed; nothing to do",
                 bdm.volume_id, bdm.instance_uuid)
        return None, tags

    @tracked(ATTACH_VOLUME_EVENT, notify="volume_attach")
    def attach_volume(self, ctx: RequestContext, instance: Instance,
                      bdm: BlockDeviceMapping) -> None:
        found, tags = self._mapping(ctx, bdm)
        if found is None:
            return
        volumes = cinder.Client(ctx, admin=True)
        attachment_id = found.attachment_id or ""
        connected: dict[str, Any] | None = None
        try:
            connection = self._connection(volumes, instance, found)
            self.driver.attach_volume(ctx, connection, instance, found.device_name,
                                      found.disk_bus, found.device_type)
            connected = connection
            self.conductor.block_device_mapping_update(ctx, found.uuid,
                                                       {"connection_info": connection})
            # before the volume shows in-use
            self._save_device_metadata(ctx, instance, tags)
            volumes.attachment_complete(attachment_id)
        except Exception:
            self._remove_volume(ctx, instance, found, connected)
            raise
        LOG.info("Attached volume %s to instance %s at %s", found.volume_id, instance.uuid,
                 found.device_name)

    def _connection(self, volumes: cinder.Client, instance: Instance,
                    bdm: BlockDeviceMapping, attachment_id: str | None = None
                    ) -> dict[str, Any]:
        """The mapping's attachment (or `attachment_id`, another of its volume's)
        connected to this host's connector (Nova's
        DriverVolumeBlockDevice._volume_attach): the connection the driver attaches,
        the volume's id its serial; a multiattach volume's only if the driver takes one
        (novalite.compute.multiattach)."""
        volume = volumes.get(bdm.volume_id or "")
        multiattach.check_driver(volume, self.driver.capabilities)
        connector = {**self.driver.get_volume_connector(instance),
                     "mountpoint": bdm.device_name}
        return multiattach.flagged(volume, {
            **volumes.attachment_update(attachment_id or bdm.attachment_id or "", connector),
            "serial": bdm.volume_id})

    def _remove_volume(self, ctx: RequestContext, instance: Instance,
                       bdm: BlockDeviceMapping, connection: dict[str, Any] | None) -> None:
        """The device unplugged (if `connection` says it was connected), then forgotten."""
        if connection is not None:
            with _logged("unplug volume %s", bdm.volume_id):
                self.driver.detach_volume(ctx, connection, instance, bdm.device_name)
        self._forget(ctx, bdm)

    def _forget(self, ctx: RequestContext, bdm: BlockDeviceMapping) -> None:
        """The attachment deleted (the export stops), then the mapping."""
        if bdm.attachment_id:
            with _logged("delete attachment %s", bdm.attachment_id):
                cinder.Client(ctx, admin=True).attachment_delete(bdm.attachment_id)
        with _logged("destroy the mapping of volume %s", bdm.volume_id):
            self.conductor.block_device_mapping_destroy(ctx, bdm.uuid)

    @tracked(DETACH_VOLUME_EVENT, notify="volume_detach")
    def detach_volume(self, ctx: RequestContext, instance: Instance,
                      bdm: BlockDeviceMapping) -> None:
        found, tags = self._mapping(ctx, bdm)
        if found is None:
            return
        try:
            self.driver.detach_volume(ctx, _device(found), instance, found.device_name)
        except Exception:
            with _logged("put volume %s back in use", found.volume_id):
                cinder.Client(ctx, admin=True).roll_detaching(found.volume_id or "")
            raise
        self._forget(ctx, found)
        tags.pop(found.volume_id or "", None)
        self._save_device_metadata(ctx, instance, tags)
        LOG.info("Detached volume %s from instance %s", found.volume_id, instance.uuid)

    @tracked(EXTEND_VOLUME_EVENT)
    def extend_volume(self, ctx: RequestContext, instance: Instance, volume_id: str
                      ) -> None:
        """Nova's volume-extended event: the volume service grew the volume (and its
        export serves the new size); the guest is shown it, and the mapping records it."""
        found = next((bdm for bdm in self.conductor.block_device_mapping_get_all_by_instance(
            ctx, instance.uuid) if bdm.volume_id == volume_id), None)
        if found is None or not found.connection_info:
            LOG.info("Volume %s is not attached to instance %s: its extension is not "
                     "the guest's", volume_id, instance.uuid)
            return
        size = int(cinder.Client(ctx, admin=True).get(volume_id)["size"])
        self.driver.extend_volume(ctx, _device(found), instance, size * GiB)
        self.conductor.block_device_mapping_update(ctx, found.uuid, {"volume_size": size})
        LOG.info("Volume %s of instance %s extended to %d GB", volume_id, instance.uuid,
                 size)

    def _cleanup_volumes(self, ctx: RequestContext, instance: Instance) -> None:
        """A deleted server's volumes, once its guest is gone: each detached (and deleted
        with delete_on_termination), its mapping destroyed. A volume the volume service
        will not detach or delete is logged and left, never a failed server delete (as
        Nova's _cleanup_volumes with raise_exc off)."""
        for bdm in self.conductor.block_device_mapping_get_all_by_instance(ctx,
                                                                           instance.uuid):
            self._forget(ctx, bdm)
            if bdm.delete_on_termination and bdm.volume_id:
                with _logged("delete volume %s", bdm.volume_id):
                    cinder.Client(ctx, admin=True).delete(bdm.volume_id)

    # --- builds and moves ----------------------------------------------------------------

    def _prep_block_devices(self, ctx: RequestContext, instance: Instance
                            ) -> list[virt_driver.VolumeDevice]:
        """Nova's _prep_block_device for a build (novalite.compute.boot_volumes asked
        for its volumes): each connected here. A failure aborts the build, as Nova's
        "Failure prepping block device": another host would not do better; the volumes
        stay mapped, for the delete."""
        try:
            return self._connect_volumes(ctx, instance)
        except Exception as exc:
            reason = (exc.format_message() if isinstance(exc, NovaliteException)
                      else f"{type(exc).__name__}: {exc}")
            raise exception.BuildAbortException(
                instance_uuid=instance.uuid,
                reason=f"Failure prepping block device: {reason}") from exc

    def _connect_volumes(self, ctx: RequestContext, instance: Instance,
                         lenient: bool = False) -> list[virt_driver.VolumeDevice]:
        """The volumes the guest is made with on this host: each one no host has (one
        the volume service made for a build, reserved once made; one a move handed
        over, see _terminate_volume_connections) exported to this host and `in-use`.
        `lenient` (a guest put back after a failed move): one that cannot be connected
        stays reserved, and the guest is made without it."""
        connected = []
        for bdm in self.conductor.block_device_mapping_get_all_by_instance(ctx,
                                                                           instance.uuid):
            with _step(lenient, "connect volume %s of instance %s to %s",
                       bdm.volume_id or bdm.source_type, instance.uuid, self.host):
                if bdm.attachment_id is None:
                    bdm = self._reserve_made(ctx, instance, bdm)
                connected.append(bdm if bdm.connection_info
                                 else self._connect(ctx, instance, bdm))
        return self._connected_devices(connected)

    def _reserve_made(self, ctx: RequestContext, instance: Instance,
                      bdm: BlockDeviceMapping) -> BlockDeviceMapping:
        """A volume the API asked for (from an image, a snapshot or nothing) reserved
        for the server once the volume service made it."""
        volumes = cinder.Client(ctx, admin=True)
        volumes.wait_available(bdm.volume_id or "")
        attachment = volumes.attachment_create(bdm.volume_id or "", instance.uuid)
        return self.conductor.block_device_mapping_update(
            ctx, bdm.uuid, {"attachment_id": attachment["id"]})

    def _connect(self, ctx: RequestContext, instance: Instance, bdm: BlockDeviceMapping
                 ) -> BlockDeviceMapping:
        """The reserved volume exported to this host and `in-use`; the guest is made
        with it (the driver connects it)."""
        volumes = cinder.Client(ctx, admin=True)
        attachment_id = bdm.attachment_id or ""
        connection = self._connection(volumes, instance, bdm)
        connected = self.conductor.block_device_mapping_update(
            ctx, bdm.uuid, {"connection_info": connection})
        volumes.attachment_complete(attachment_id)
        return connected

    def _terminate_volume_connections(self, ctx: RequestContext, instance: Instance,
                                      lenient: bool = False) -> None:
        """Nova's, once the guest let go of its volumes here (a move leaving this host,
        a shelve offload, a failed build): each volume connected to this host is
        reserved for the server anew (Cinder lets the same instance hold a second
        attachment), the mapping takes the reservation, and its attachment here is
        deleted (its export stops). The next host, or the delete, finds it reserved
        and never free to others. `lenient`: a volume that cannot be handed over is
        logged and the others still are (the clean-up of a failure), rather than the
        step failing."""
        volumes = cinder.Client(ctx, admin=True)
        for bdm in self.conductor.block_device_mapping_get_all_by_instance(ctx,
                                                                           instance.uuid):
            if not (bdm.connection_info and bdm.attachment_id and bdm.volume_id):
                continue
            with _step(lenient, "hand volume %s of instance %s over", bdm.volume_id,
                       instance.uuid):
                held = bdm.attachment_id
                fresh = volumes.attachment_create(bdm.volume_id, instance.uuid)
                self.conductor.block_device_mapping_update(
                    ctx, bdm.uuid, {"attachment_id": fresh["id"], "connection_info": None})
                volumes.attachment_delete(held)

    def _attach_here_too(self, ctx: RequestContext, instance: Instance,
                         mappings: list[BlockDeviceMapping]) -> dict[str, dict[str, Any]]:
        """A live migration's destination (Nova's pre_live_migration): each volume
        attached to this host as well, a second attachment of the server's beside the
        source's, which the guest still uses; by mapping, each new attachment and its
        connection. The mappings keep the source's until the guest has moved
        (_take_attachments); nothing is left attached here if one fails."""
        volumes = cinder.Client(ctx, admin=True)
        made: dict[str, dict[str, Any]] = {}
        try:
            for bdm in mappings:
                attachment_id = volumes.attachment_create(bdm.volume_id or "",
                                                          instance.uuid)["id"]
                made[bdm.uuid] = {"attachment_id": attachment_id}
                made[bdm.uuid]["connection_info"] = self._connection(volumes, instance, bdm,
                                                                     attachment_id)
        except Exception:
            for attachment in made.values():
                with _logged("delete attachment %s", attachment["attachment_id"]):
                    volumes.attachment_delete(attachment["attachment_id"])
            raise
        return made

    def _take_attachments(self, ctx: RequestContext, instance: Instance,
                          made: dict[str, dict[str, Any]]) -> None:
        """The guest runs on the live migration's destination: each mapping takes the
        attachment made there (_attach_here_too), which is completed, and the
        source's is deleted (Nova's _post_live_migration). The move is done: a volume
        whose old attachment cannot be deleted is logged, not a failed move."""
        volumes = cinder.Client(ctx, admin=True)
        for bdm in self.conductor.block_device_mapping_get_all_by_instance(ctx,
                                                                           instance.uuid):
            if bdm.uuid not in made:
                continue
            with _logged("move volume %s of instance %s", bdm.volume_id, instance.uuid):
                held = bdm.attachment_id
                self.conductor.block_device_mapping_update(ctx, bdm.uuid, made[bdm.uuid])
                volumes.attachment_complete(made[bdm.uuid]["attachment_id"])
                if held:
                    volumes.attachment_delete(held)

    @staticmethod
    def _connected_devices(mappings: list[BlockDeviceMapping]
                           ) -> list[virt_driver.VolumeDevice]:
        """The volumes a guest is made again with, as they are connected (a rebuild)."""
        return [virt_driver.VolumeDevice(
            connection_info=_device(bdm), mount_device=bdm.device_name or "",
            boot_index=bdm.boot_index, disk_bus=bdm.disk_bus, device_type=bdm.device_type,
            tag=bdm.tag)
            for bdm in mappings if bdm.connection_info]

    def _reattach_volumes(self, ctx: RequestContext, instance: Instance,
                          mappings: list[BlockDeviceMapping]) -> None:
        """Connect a guest made again (a rebuild) to the volumes it had: their exports
        and attachments never changed."""
        for bdm in mappings:
            if bdm.connection_info:
                self.driver.attach_volume(ctx, _device(bdm), instance, bdm.device_name,
                                          bdm.disk_bus, bdm.device_type)

    # --- service start -----------------------------------------------------------------

    def _init_volumes(self, ctx: RequestContext, instance: Instance) -> None:
        if instance.vm_state == states.BUILDING:  # the build's volumes: see _init_instance
            return
        mappings = self.conductor.block_device_mapping_get_all_by_instance(ctx,
                                                                           instance.uuid)
        if not mappings:  # the API maps a volume before it reserves it
            return
        volumes = cinder.Client(ctx, admin=True)
        for bdm in mappings:
            with _logged("recover volume %s of instance %s", bdm.volume_id, instance.uuid):
                self._init_volume(ctx, volumes, instance, bdm)
        self._delete_unmapped_attachments(ctx, instance, mappings)

    def _delete_unmapped_attachments(self, ctx: RequestContext, instance: Instance,
                                     mappings: list[BlockDeviceMapping]) -> None:
        """The instance's attachments that none of its `mappings` names: one a step cut
        short made, or a live migration's destination made for a guest that never
        came."""
        known = {bdm.attachment_id for bdm in mappings}
        volumes = cinder.Client(ctx, admin=True)
        for attachment in volumes.attachment_get_all(instance.uuid):
            if attachment["id"] not in known:
                LOG.info("Deleting attachment %s of instance %s, which no mapping names",
                         attachment["id"], instance.uuid)
                with _logged("delete attachment %s", attachment["id"]):
                    volumes.attachment_delete(attachment["id"])

    def _init_volume(self, ctx: RequestContext, volumes: cinder.Client, instance: Instance,
                     bdm: BlockDeviceMapping) -> None:
        if not bdm.connection_info:
            if instance.task_state is not None or (instance.vm_state
                                                   not in states.ALLOW_ATTACH_VOLUME):
                return  # reserved for a move or a failed one, not an attach: it stays
            LOG.warning("Undoing the attach of volume %s to instance %s, which a restart "
                        "of %s interrupted", bdm.volume_id, instance.uuid, self.host)
            self._remove_volume(ctx, instance, bdm, _device(bdm))
            return
        try:
            attachment = volumes.attachment_get(bdm.attachment_id or "")
        except cinder.CinderError as exc:
            if exc.status != 404:
                raise
            LOG.warning("The attachment of volume %s to instance %s is gone: dropping its "
                        "mapping", bdm.volume_id, instance.uuid)
            self._remove_volume(ctx, instance, bdm, _device(bdm))
            return
        if volumes.get(bdm.volume_id or "")["status"] == "detaching":
            LOG.warning("Finishing the detach of volume %s from instance %s", bdm.volume_id,
                        instance.uuid)
            self._remove_volume(ctx, instance, bdm, _device(bdm))
        elif attachment["status"] == "attaching":
            LOG.warning("Completing the attach of volume %s to instance %s", bdm.volume_id,
                        instance.uuid)
            volumes.attachment_complete(bdm.attachment_id or "")
