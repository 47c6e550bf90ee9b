"""The scheduler's RPC endpoint."""

from __future__ import annotations

from novalite.conf import CONF
from novalite.context import RequestContext
from novalite.objects.request_spec import RequestSpec, Selection
from novalite.rpc import Target
from novalite.scheduler.driver import load_scheduler
from novalite.service.manager import Manager


class SchedulerManager(Manager):
    target = Target(version="1.1")

    def __init__(self, host: str) -> None:
        super().__init__(host)
        self.driver = load_scheduler(CONF.scheduler.driver)

    def select_destinations(self, ctx: RequestContext, request_spec: RequestSpec,
                            instance_uuids: list[str], return_alternates: bool = False
                            ) -> list[list[Selection]]:
        return self.driver.select_destinations(ctx, request_spec, instance_uuids,
                                               return_alternates)

    def update_instance_info(self, ctx: RequestContext, host_name: str,
                             instance_uuids: list[str]) -> None:
        self.driver.host_manager.update_instance_info(host_name, instance_uuids)

    def delete_instance_info(self, ctx: RequestContext, host_name: str,
                             instance_uuid: str) -> None:
        self.driver.host_manager.delete_instance_info(host_name, instance_uuid)

    def sync_instance_info(self, ctx: RequestContext, host_name: str,
                           instance_uuids: list[str]) -> None:
        self.driver.host_manager.sync_instance_info(host_name, instance_uuids)
