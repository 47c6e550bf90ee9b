"""Client of the volume manager's RPC API (Cinder's volume RPC API).

Version history:
  1.0: create_volume, delete_volume
"""

from __future__ import annotations

from novalite.context import RequestContext
from novalite.rpc.rpcapi import make_client

TOPIC = "volume"


def service_host(volume_host: str) -> str:
    """The volume service of a volume's `host@backend#pool`."""
    return volume_host.partition("@")[0]


class VolumeAPI:
    def __init__(self) -> None:
        self.client = make_client(TOPIC, "1.0")

    def create_volume(self, ctx: RequestContext, volume_id: str) -> None:
        """To any volume service: the first to take it places the volume on its backend
        if it fits (novalite's stand-in for Cinder's scheduler with one backend each)."""
        self.client.cast(ctx, "create_volume", volume_id=volume_id)

    def delete_volume(self, ctx: RequestContext, volume_host: str, volume_id: str) -> None:
        self.client.prepare(server=service_host(volume_host)).cast(
            ctx, "delete_volume", volume_id=volume_id)
