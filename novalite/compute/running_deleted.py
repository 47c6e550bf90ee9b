"""Guests of deleted servers. The API deletes a server itself when its compute is down
(Nova's local delete), and the guest may still run here when the compute comes back: a
compute looks for such guests on start and every running_deleted_instance_poll_interval
and reaps, powers off or logs them ([DEFAULT] running_deleted_instance_action, as Nova's
_cleanup_running_deleted_instances), so that no guest outlives its server for good."""

from __future__ import annotations

import datetime
import logging

from novalite.conductor.rpcapi import ConductorAPI
from novalite.conf import CONF
from novalite.context import RequestContext
from novalite.objects.instance import Instance
from novalite.periodic import periodic_task
from novalite.timeutils import utcnow
from novalite.virt import driver as virt_driver

LOG = logging.getLogger(__name__)


class RunningDeletedCleanup:
    """Mixed into the ComputeManager, whose services these are."""

    host: str
    driver: virt_driver.ComputeDriver
    conductor: ConductorAPI

    @periodic_task(spacing=lambda: CONF.running_deleted_instance_poll_interval,
                   run_immediately=True)
    def _cleanup_running_deleted_instances(self, ctx: RequestContext) -> None:
        action = CONF.running_deleted_instance_action
        if action == "noop":
            return
        for instance in self._running_deleted_instances(ctx):
            try:
                if action == "log":
                    LOG.warning("Instance %s is deleted but its guest is still on %s",
                                instance.uuid, self.host)
                elif action == "shutdown":
                    LOG.info("Powering off the guest of deleted instance %s", instance.uuid)
                    self.driver.power_off(instance)
                else:
                    LOG.info("Destroying the guest of deleted instance %s", instance.uuid)
                    self.driver.destroy(ctx, instance)
            except Exception:  # the next look tries again
                LOG.warning("Could not %s the guest of deleted instance %s", action,
                            instance.uuid, exc_info=True)

    def _running_deleted_instances(self, ctx: RequestContext) -> list[Instance]:
        """The deleted servers whose guests this host has, deleted at least
        running_deleted_instance_timeout seconds ago."""
        uuids = self.driver.list_instances()
        if not uuids:
            return []
        cutoff = utcnow() - datetime.timedelta(
            seconds=CONF.running_deleted_instance_timeout)
        return [i for i in self.conductor.instance_get_deleted(ctx, uuids)
                if i.deleted_at is None or i.deleted_at <= cutoff]
