"""Client of the scheduler's RPC API.

Version history:
  1.0: select_destinations
"""

from __future__ import annotations

from novalite.context import RequestContext
from novalite.objects.request_spec import RequestSpec, Selection
from novalite.rpcapi import make_client

TOPIC = "scheduler"


class SchedulerAPI:
    def __init__(self) -> None:
        self.client = make_client(TOPIC, "1.0")

    def select_destinations(self, ctx: RequestContext, request_spec: RequestSpec,
                            instance_uuids: list[str], return_alternates: bool = False
                            ) -> list[list[Selection]]:
        return self.client.call(ctx, "select_destinations", request_spec=request_spec,
                                instance_uuids=instance_uuids,
                                return_alternates=return_alternates)
