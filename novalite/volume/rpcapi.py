"""Client of the volume manager's RPC API (Cinder's volume RPC API).

Version history:
  1.0: create_volume, delete_volume, extend_volume, create_snapshot, delete_snapshot
  1.1: attachment_update, attachment_delete (calls: export a volume to a connector,
       stop the export)
  1.2: copy_volume_to_image
"""

from __future__ import annotations

from typing import Any

from novalite.context import RequestContext
from novalite.rpc.rpcapi import make_client

TOPIC = "volume"
BINARY = "novalite-volume"


def service_host(volume_host: str) -> str:
    """The volume service of a volume's `host@backend#pool`."""
    return volume_host.partition("@")[0]


class VolumeAPI:
    def __init__(self) -> None:
        self.client = make_client(TOPIC, "1.0")

    def create_volume(self, ctx: RequestContext, volume_id: str,
                      source_host: str | None = None) -> None:
        """To the service holding the volume's source (a snapshot or volume to copy),
        else to any: the first to take it places the volume on its backend if it fits
        (novalite's stand-in for Cinder's scheduler with one backend per service)."""
        client = self.client.prepare(server=service_host(source_host)) if source_host \
            else self.client
        client.cast(ctx, "create_volume", volume_id=volume_id)

    def delete_volume(self, ctx: RequestContext, volume_host: str, volume_id: str) -> None:
        self.client.prepare(server=service_host(volume_host)).cast(
            ctx, "delete_volume", volume_id=volume_id)

    def extend_volume(self, ctx: RequestContext, volume_host: str, volume_id: str,
                      new_size: int) -> None:
        self.client.prepare(server=service_host(volume_host)).cast(
            ctx, "extend_volume", volume_id=volume_id, new_size=new_size)

    def create_snapshot(self, ctx: RequestContext, volume_host: str, snapshot_id: str) -> None:
        self.client.prepare(server=service_host(volume_host)).cast(
            ctx, "create_snapshot", snapshot_id=snapshot_id)

    def delete_snapshot(self, ctx: RequestContext, volume_host: str, snapshot_id: str) -> None:
        self.client.prepare(server=service_host(volume_host)).cast(
            ctx, "delete_snapshot", snapshot_id=snapshot_id)

    def attachment_update(self, ctx: RequestContext, volume_host: str, volume_id: str,
                          attachment_id: str, connector: dict[str, Any]) -> dict[str, Any]:
        """Export the volume to `connector`; the connection info (Cinder's
        initialize_connection: driver_volume_type and data)."""
        found: dict[str, Any] = self.client.prepare(
            server=service_host(volume_host), version="1.1").call(
            ctx, "attachment_update", volume_id=volume_id, attachment_id=attachment_id,
            connector=connector)
        return found

    def attachment_delete(self, ctx: RequestContext, volume_host: str,
                          attachment_id: str) -> None:
        self.client.prepare(server=service_host(volume_host), version="1.1").call(
            ctx, "attachment_delete", attachment_id=attachment_id)

    def copy_volume_to_image(self, ctx: RequestContext, volume_host: str, volume_id: str,
                             image_id: str, disk_format: str, container_format: str
                             ) -> None:
        self.client.prepare(server=service_host(volume_host), version="1.2").cast(
            ctx, "copy_volume_to_image", volume_id=volume_id, image_id=image_id,
            disk_format=disk_format, container_format=container_format)
