"""The scheduler's RPC endpoint."""

from __future__ import annotations

from novalite.conf import CONF
from novalite.context import RequestContext
from novalite.notifications import events
from novalite.notifications.objects.request_spec import RequestSpecPayload
from novalite.objects.request_spec import RequestSpec, Selection
from novalite.periodic import periodic_task
from novalite.rpc import Target, ack_when_done
from novalite.scheduler.driver import load_scheduler
from novalite.service.manager import Manager

SCHEDULER = "novalite-scheduler"
DEFAULT_PERIODIC_INTERVAL = 60


def _periodic_interval() -> float:
    """[scheduler] periodic_task_interval as Nova reads it: 0 means the default."""
    return CONF.scheduler.periodic_task_interval or DEFAULT_PERIODIC_INTERVAL


class SchedulerManager(Manager):
    target = Target(version="1.1")

    def __init__(self, host: str) -> None:
        super().__init__(host)
        self.driver = load_scheduler(CONF.scheduler.driver)

    @ack_when_done
    def select_destinations(self, ctx: RequestContext, request_spec: RequestSpec,
                            instance_uuids: list[str], return_alternates: bool = False
                            ) -> list[list[Selection]]:
        """Nova's scheduler.select_destinations.start/.end around the choice (a failure,
        NoValidHost among them, sends no .end).

        Acknowledged once answered: a call a killed scheduler had taken is answered by
        its successor (or another scheduler) while the conductor still waits, instead of
        the conductor waiting out rpc_response_timeout. Run again, it is safe: placement
        refuses a second claim for an instance that holds one, so such an instance is
        NoValidHost here and the conductor builds it where the first claim is (see
        ScheduleAndBuildTask._adopt); a claim for a build given up meanwhile is given
        back (novalite.scheduler.claims)."""
        with events.start_end("scheduler.select_destinations",
                              lambda: RequestSpecPayload.from_spec(request_spec),
                              SCHEDULER, ctx, self.host, wrap_exception=False):
            return self.driver.select_destinations(ctx, request_spec, instance_uuids,
                                                   return_alternates)

    @periodic_task(_periodic_interval, run_immediately=True)
    def _refresh_host_states(self, ctx: RequestContext) -> None:
        self.warm_host_states()

    def warm_host_states(self) -> None:
        self.driver.host_manager.warm()

    def update_instance_info(self, ctx: RequestContext, host_name: str,
                             instance_uuids: list[str]) -> None:
        self.driver.host_manager.update_instance_info(host_name, instance_uuids)

    def delete_instance_info(self, ctx: RequestContext, host_name: str,
                             instance_uuid: str) -> None:
        self.driver.host_manager.delete_instance_info(host_name, instance_uuid)

    def sync_instance_info(self, ctx: RequestContext, host_name: str,
                           instance_uuids: list[str]) -> None:
        self.driver.host_manager.sync_instance_info(host_name, instance_uuids)
