"""The compute API's side of volumes attached to servers (Nova's compute.api.API
attach_volume and detach_volume, with the conductor's share of an attach): Nova's checks
and texts, the volume reserved in the volume service with the user's token (a volume the
user cannot see is not found), the block device mapping recorded, the action recorded
and the work cast to the instance's compute (novalite.compute.volume_steps). A request
refused or failed on the way leaves no reservation and no mapping behind.

A multiattach volume goes to several servers from 2.60 (novalite.compute.multiattach),
never twice to one. From 2.20 a shelved server takes and gives volumes too; one
shelved off any host only has them reserved or released here (its unshelve connects
them). Servers in VERIFY_RESIZE take no volumes (Nova's do). A server with volumes
moves as Nova's does, live migrations too: the compute carries its attachments."""

from __future__ import annotations

import contextlib
import logging
import string

from novalite import exception
from novalite.clients import cinder
from novalite.compute import guards, multiattach, service_api
from novalite.compute import rpcapi as compute_rpcapi
from novalite.context import RequestContext
from novalite.db.api import actions, block_devices
from novalite.objects import states
from novalite.objects.block_device import BlockDeviceMapping
from novalite.objects.instance import Instance

LOG = logging.getLogger(__name__)

ROOT_DEVICE = "/dev/vda"  # the image's disk; volumes get the next names
_DEVICE_LETTERS = string.ascii_lowercase[1:]


class VolumeAttachNotAvailable(exception.Conflict):
    msg_fmt = ("Volume attachments are not available until the compute services are "
               "upgraded ([upgrade_levels] compute caps their RPC API below them).")


class ServiceUnavailable(exception.Conflict):
    msg_fmt = "Service is unavailable at this time."


class TooManyDiskDevices(exception.Forbidden):
    msg_fmt = ("The maximum allowed number of disk devices (%(maximum)d) to attach to a "
               "single instance has been exceeded.")


def _volume_error(exc: cinder.CinderError, volume_id: str) -> Exception:
    """The volume service's refusal as Nova's translate_cinder_exception words it."""
    if exc.status == 404:
        return exception.VolumeNotFound(volume_id=volume_id)
    if exc.status == 400:
        return exception.InvalidInput(reason=exc.format_message())
    return exception.VolumeServiceError(status=exc.status, reason=exc.format_message())


def _check_not_attached(instance: Instance, volume: dict) -> None:
    """Nova's _check_volume_already_attached: a volume mapped to a server is attached to
    no other unless multiattach, and to no server twice."""
    attached = block_devices.bdm_get_by_volume(volume["id"])
    if attached and not multiattach.is_multiattach(volume):
        raise exception.InvalidVolume(reason=(
            f"volume {volume['id']} is already attached to instances: "
            f"{' '.join(b.instance_uuid for b in attached)}"))
    if any(b.instance_uuid == instance.uuid for b in attached):
        raise exception.InvalidVolume(reason=f"volume {volume['id']} already attached")


class VolumeAttachAPI:
    def __init__(self) -> None:
        self.compute = compute_rpcapi.ComputeAPI()

    def _checked(self, ctx: RequestContext, instance: Instance, action: str,
                 shelved: bool) -> str | None:
        """Nova's checks of the instance, in its order; its host (None for a server
        shelved off any host, whose volumes its unshelve connects). `shelved`: a
        shelved server takes and gives volumes too (Nova's 2.20)."""
        if not self.compute.client.can_send_version("1.22"):
            raise VolumeAttachNotAvailable()
        guards.check_lock(ctx, instance)
        guards.check_state(instance, action, states.ALLOW_ATTACH_VOLUME + (
            (states.SHELVED, states.SHELVED_OFFLOADED) if shelved else ()))
        if instance.vm_state == states.SHELVED_OFFLOADED:
            return None
        return guards.check_host(instance)

    @staticmethod
    def volume(ctx: RequestContext, volume_id: str) -> dict:
        try:
            return cinder.Client(ctx).get(volume_id)
        except cinder.CinderError as exc:
            raise _volume_error(exc, volume_id) from None

    def attach(self, ctx: RequestContext, instance: Instance, volume_id: str,
               device: str | None, tag: str | None, delete_on_termination: bool,
               shelved: bool = False, supports_multiattach: bool = False
               ) -> BlockDeviceMapping:
        """The volume reserved and mapped, then connected by the server's compute; for a
        server shelved off any host, only reserved and mapped (Nova's
        _attach_volume_shelved_offloaded): its unshelve connects it where it lands. A
        multiattach volume needs `supports_multiattach` (a request of 2.60 or later)
        and a server on a host (novalite.compute.multiattach)."""
        host = self._checked(ctx, instance, "attach_volume", shelved)
        volume = self.volume(ctx, volume_id)
        _check_not_attached(instance, volume)
        if host is None and multiattach.is_multiattach(volume):
            raise multiattach.MultiattachToShelvedNotSupported()
        multiattach.check_microversion(volume, supports_multiattach)
        device_name = self._device_name(instance.uuid, device)
        # the mapping first, as Nova's: a request racing this one for the volume fails
        # on it before reaching the volume service, and a mapping whose reservation a
        # crash cut short is found (and undone) by the compute's start
        bdm = block_devices.bdm_create({
            "instance_uuid": instance.uuid, "source_type": "volume",
            "destination_type": "volume", "volume_id": volume_id,
            "device_name": device_name, "tag": tag,
            "delete_on_termination": delete_on_termination,
            "volume_size": volume.get("size")})
        attachment_id = None
        try:
            try:
                attachment_id = cinder.Client(ctx).attachment_create(
                    volume_id, instance.uuid)["id"]
            except cinder.CinderError as exc:
                raise _volume_error(exc, volume_id) from None
            bdm = block_devices.bdm_update(bdm.uuid, {"attachment_id": attachment_id})
            actions.action_start(ctx, instance.uuid, "attach_volume")
            if host is not None:
                self.compute.attach_volume(ctx, host, instance, bdm)
        except BaseException:
            self._unreserve(ctx, attachment_id, bdm)
            raise
        return bdm

    @staticmethod
    def _unreserve(ctx: RequestContext, attachment_id: str | None,
                   bdm: BlockDeviceMapping) -> None:
        block_devices.bdm_destroy(bdm.uuid)
        if attachment_id is None:
            return
        try:
            cinder.Client(ctx, admin=True).attachment_delete(attachment_id)
        except (cinder.CinderError, cinder.CinderUnavailable):
            LOG.exception("Could not delete attachment %s of a refused attach",
                          attachment_id)

    @staticmethod
    def _device_name(instance_uuid: str, requested: str | None) -> str:
        """The requested name if free (Nova's DevicePathInUse), else the next free
        /dev/vdX after the root disk's."""
        used = {ROOT_DEVICE, *(b.device_name for b in
                               block_devices.bdm_get_all_by_instance(instance_uuid))}
        if requested:
            if requested in used:
                raise exception.DevicePathInUse(path=requested)
            return requested
        for letter in _DEVICE_LETTERS:
            if f"/dev/vd{letter}" not in used:
                return f"/dev/vd{letter}"
        raise TooManyDiskDevices(maximum=len(_DEVICE_LETTERS))

    def detach(self, ctx: RequestContext, instance: Instance, bdm: BlockDeviceMapping,
               shelved: bool = False) -> None:
        """The volume `detaching`, then the compute's work (Nova's: the instance's
        compute must be up to take it); for a server shelved off any host, the
        reservation deleted here, and the volume too with delete_on_termination
        (Nova's _detach_volume_shelved_offloaded)."""
        host = self._checked(ctx, instance, "detach_volume", shelved)
        if host is None:
            actions.action_start(ctx, instance.uuid, "detach_volume")
            _release(cinder.Client(ctx, admin=True), instance, bdm)
            block_devices.bdm_destroy(bdm.uuid)
            return
        if not service_api.compute_is_up(host):
            raise ServiceUnavailable()
        volumes = cinder.Client(ctx)
        try:
            volumes.begin_detaching(bdm.volume_id or "")
        except cinder.CinderError as exc:
            raise exception.InvalidVolume(reason=exc.format_message()) from None
        try:
            actions.action_start(ctx, instance.uuid, "detach_volume")
            self.compute.detach_volume(ctx, host, instance, bdm)
        except BaseException:
            with contextlib.suppress(cinder.CinderError, cinder.CinderUnavailable):
                volumes.roll_detaching(bdm.volume_id or "")
            raise


def cleanup_locally(ctx: RequestContext, instance: Instance) -> None:
    """A server deleted without its compute (Nova's _local_cleanup_bdm_volumes): each
    attachment deleted (the export stops), each volume with delete_on_termination
    deleted; a failure is logged, never a failed delete. The mappings go with the
    instance."""
    volumes = cinder.Client(ctx, admin=True)
    for bdm in block_devices.bdm_get_all_by_instance(instance.uuid):
        _release(volumes, instance, bdm)


def _release(volumes: cinder.Client, instance: Instance, bdm: BlockDeviceMapping) -> None:
    """The mapping's attachment deleted, and its volume with delete_on_termination; a
    failure is logged."""
    try:
        if bdm.attachment_id:
            volumes.attachment_delete(bdm.attachment_id)
        if bdm.delete_on_termination and bdm.volume_id:
            volumes.delete(bdm.volume_id)
    except (cinder.CinderError, cinder.CinderUnavailable) as exc:
        LOG.warning("Ignoring the clean-up failure of volume %s of instance %s: %s",
                    bdm.volume_id, instance.uuid, exc)

