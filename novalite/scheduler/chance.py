"""The ChanceScheduler of Nova's earlier releases: a random host among those whose compute
service is up, enabled and not ignored; alternates are random too. No filters, no weighers;
the compute host's claim still guards its capacity."""

from __future__ import annotations

import random

from novalite import exception
from novalite.conf import CONF
from novalite.context import RequestContext
from novalite.objects.request_spec import RequestSpec, Selection
from novalite.scheduler.driver import Scheduler
from novalite.scheduler.request_filter import destination_rows


class ChanceScheduler(Scheduler):
    def select_destinations(self, ctx: RequestContext, spec: RequestSpec,
                            instance_uuids: list[str], return_alternates: bool
                            ) -> list[list[Selection]]:
        num_alts = CONF.scheduler.max_attempts - 1 if return_alternates else 0
        with self.host_manager.lock:
            table = self.host_manager.refresh()
            hosts = [table.states[row] for row in destination_rows(table, spec)
                     if table.states[row].service_up and not table.states[row].service_disabled]
        if not hosts:
            raise exception.NoValidHost(reason="There are not enough hosts available.")
        results = []
        for uuid in instance_uuids:
            chosen = random.sample(hosts, min(len(hosts), num_alts + 1))
            results.append([Selection(service_host=h.host, nodename=h.nodename,
                                      compute_node_uuid=h.uuid, instance_uuid=uuid,
                                      availability_zone=self.host_manager.availability_zone(h))
                            for h in chosen])
        return results
