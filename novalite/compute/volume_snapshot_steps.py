"""Assisted volume snapshots on this host (Nova's ComputeManager.volume_snapshot_create
and volume_snapshot_delete, with the reports Nova's libvirt driver sends), mixed into the
manager as VolumeSnapshotSteps.

The volume service asked for them and waits on the snapshot's status, so each outcome
is reported to it with Cinder's os-update_snapshot_status, as Nova's: its share done is
the status the snapshot already has ("creating" or "deleting") at progress "90%", for
the volume service to finish; a failure is "error" or "error_deleting". A report the
volume service refuses (a snapshot it does not know, or one no longer being made) is
logged: the request was answered long ago and nobody else would hear of it."""

from __future__ import annotations

import logging
from typing import Any

from novalite.clients import cinder
from novalite.context import RequestContext
from novalite.objects.instance import Instance
from novalite.virt.driver import ComputeDriver

LOG = logging.getLogger(__name__)


def report(ctx: RequestContext, snapshot_id: str, status: str) -> None:
    """With the service's credentials: the snapshot is the volume owner's, whoever
    asked."""
    try:
        cinder.Client(ctx, admin=True).update_snapshot_status(snapshot_id, status)
    except (cinder.CinderError, cinder.CinderUnavailable) as exc:
        LOG.error("Could not report snapshot %s %s to the volume service: %s",
                  snapshot_id, status, exc)


class VolumeSnapshotSteps:
    """Mixed into the ComputeManager, whose driver these ask."""

    driver: ComputeDriver

    def volume_snapshot_create(self, ctx: RequestContext, instance: Instance,
                               volume_id: str, create_info: dict[str, Any]) -> None:
        """RPC cast (1.29)."""
        snapshot_id = create_info["snapshot_id"]
        try:
            self.driver.volume_snapshot_create(ctx, instance, volume_id, create_info)
        except Exception:
            LOG.exception("Could not snapshot volume %s of instance %s; reporting "
                          "snapshot %s in error", volume_id, instance.uuid, snapshot_id)
            report(ctx, snapshot_id, "error")
            raise
        report(ctx, snapshot_id, "creating")

    def volume_snapshot_delete(self, ctx: RequestContext, instance: Instance,
                               volume_id: str, snapshot_id: str,
                               delete_info: dict[str, Any]) -> None:
        """RPC cast (1.29)."""
        try:
            self.driver.volume_snapshot_delete(ctx, instance, volume_id, snapshot_id,
                                               delete_info)
        except Exception:
            LOG.exception("Could not merge snapshot %s of volume %s of instance %s; "
                          "reporting it error_deleting", snapshot_id, volume_id,
                          instance.uuid)
            report(ctx, snapshot_id, "error_deleting")
            raise
        report(ctx, snapshot_id, "deleting")
