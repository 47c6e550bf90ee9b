"""Client of the scheduler's RPC API.

Version history:
  1.0: select_destinations
  1.1: update_instance_info, delete_instance_info, sync_instance_info (fanout casts from
       the computes; a 1.0 scheduler simply never gets them and reads the database)
"""

from __future__ import annotations

from typing import Any

from novalite.context import RequestContext
from novalite.objects.request_spec import RequestSpec, Selection
from novalite.rpc.rpcapi import make_client

TOPIC = "scheduler"


class SchedulerAPI:
    def __init__(self) -> None:
        # a call the scheduler runs again answers it again (SchedulerManager)
        self.client = make_client(TOPIC, "1.1", idempotent=frozenset({"select_destinations"}))

    def select_destinations(self, ctx: RequestContext, request_spec: RequestSpec,
                            instance_uuids: list[str], return_alternates: bool = False
                            ) -> list[list[Selection]]:
        return self.client.call(ctx, "select_destinations", request_spec=request_spec,
                                instance_uuids=instance_uuids,
                                return_alternates=return_alternates)

    def _fanout(self, ctx: RequestContext, method: str, **kwargs: Any) -> None:
        if self.client.can_send_version("1.1"):
            self.client.prepare(fanout=True, version="1.1").cast(ctx, method, **kwargs)

    def update_instance_info(self, ctx: RequestContext, host_name: str,
                             instance_uuids: list[str]) -> None:
        """`instance_uuids` now run on `host_name` (in addition to those known)."""
        self._fanout(ctx, "update_instance_info", host_name=host_name,
                     instance_uuids=instance_uuids)

    def delete_instance_info(self, ctx: RequestContext, host_name: str,
                             instance_uuid: str) -> None:
        self._fanout(ctx, "delete_instance_info", host_name=host_name,
                     instance_uuid=instance_uuid)

    def sync_instance_info(self, ctx: RequestContext, host_name: str,
                           instance_uuids: list[str]) -> None:
        """The complete list, for the schedulers to check theirs against."""
        self._fanout(ctx, "sync_instance_info", host_name=host_name,
                     instance_uuids=instance_uuids)
