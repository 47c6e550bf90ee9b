"""The compute API's side of assisted volume snapshots (Nova's compute.api.API
volume_snapshot_create and volume_snapshot_delete): the volume service, whose backend
keeps a volume as a file chain it cannot change under a running guest, asks the cloud
to move the guest onto a new file or to merge one away. The volume's one block device
mapping names the server; the server must be on a host with no task under way (any
vm_state, as Nova allows), and the work is cast to that host's compute, which reports
the outcome to the volume service itself (novalite.compute.volume_snapshot_steps)."""

from __future__ import annotations

from typing import Any

from novalite import exception
from novalite.compute import guards
from novalite.compute import rpcapi as compute_rpcapi
from novalite.context import RequestContext
from novalite.db.api import block_devices, instances
from novalite.objects import states
from novalite.objects.instance import Instance

RPC_VERSION = "1.29"


class VolumeSnapshotsNotAvailable(exception.Invalid):
    msg_fmt = ("Assisted volume snapshots are not available until the compute services "
               "are upgraded ([upgrade_levels] compute caps their RPC API below them).")


def _instance_of(volume_id: str) -> Instance:
    """The server the volume is attached to; a multiattach volume has several, and no
    one guest may move it onto a new file (Nova's VolumeBDMIsMultiAttach)."""
    mappings = block_devices.bdm_get_by_volume(volume_id)
    if not mappings:
        raise exception.VolumeBDMNotFound(volume_id=volume_id)
    if len(mappings) > 1:
        raise exception.VolumeBDMIsMultiAttach(volume_id=volume_id)
    return instances.instance_get(mappings[0].instance_uuid)


class VolumeSnapshotAPI:
    def __init__(self) -> None:
        self.compute = compute_rpcapi.ComputeAPI()

    def _checked(self, volume_id: str, method: str) -> tuple[Instance, str]:
        """The server and its host, in Nova's order of checks: a host, then no task."""
        instance = _instance_of(volume_id)
        host = guards.check_host(instance)
        guards.check_state(instance, method)
        if not self.compute.client.can_send_version(RPC_VERSION):
            raise VolumeSnapshotsNotAvailable()
        return instance, host

    def create(self, ctx: RequestContext, volume_id: str, create_info: dict[str, Any]
               ) -> dict[str, Any]:
        """Nova's answer: the snapshot's `id` is create_info's optional `id` (the
        volume service's own name for it), null when not given."""
        instance, host = self._checked(volume_id, "volume_snapshot_create")
        self.compute.volume_snapshot_create(ctx, host, instance, volume_id, create_info)
        return {"id": create_info.get("id"), "volumeId": volume_id}

    def delete(self, ctx: RequestContext, volume_id: str, snapshot_id: str,
               delete_info: dict[str, Any]) -> None:
        """A merge into a file below the active one needs a running guest (Nova's
        refusal for bug 1919487: no driver commits an offline chain)."""
        instance, host = self._checked(volume_id, "volume_snapshot_delete")
        if delete_info.get("merge_target_file") is not None and \
                instance.vm_state != states.ACTIVE:
            raise exception.InstanceInvalidState(
                action="volume_snapshot_delete", instance_uuid=instance.uuid,
                attr="vm_state", state=instance.vm_state)
        self.compute.volume_snapshot_delete(ctx, host, instance, volume_id, snapshot_id,
                                            delete_info)
