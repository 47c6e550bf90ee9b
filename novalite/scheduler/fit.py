"""The walking-skeleton scheduler: hosts that are up, enabled and have room, most free RAM
first. It keeps Nova's selection contract (subset choice, alternates, min_count) so the
full FilterScheduler can replace it without touching its callers."""

from __future__ import annotations

import logging
import random

from novalite import exception
from novalite.compute import capacity
from novalite.conf import CONF
from novalite.context import RequestContext
from novalite.objects.request_spec import RequestSpec, Selection
from novalite.scheduler.driver import Scheduler
from novalite.scheduler.host_manager import HostState

LOG = logging.getLogger(__name__)


class FitScheduler(Scheduler):
    def _eligible(self, state: HostState, spec: RequestSpec,
                  wanted: capacity.Resources) -> bool:
        if not state.service_up or state.service_disabled:
            return False
        if state.host in spec.ignore_hosts:
            return False
        if spec.force_hosts and state.host not in spec.force_hosts:
            return False
        if spec.force_nodes and state.nodename not in spec.force_nodes:
            return False
        return state.free.covers(wanted)

    def select_destinations(self, ctx: RequestContext, spec: RequestSpec,
                            instance_uuids: list[str], return_alternates: bool
                            ) -> list[list[Selection]]:
        wanted = capacity.requested(spec.flavor)
        num_alts = CONF.scheduler.max_attempts - 1 if return_alternates else 0
        results: list[list[Selection]] = []
        with self.host_manager.lock:
            states = self.host_manager.get_host_states()
            for instance_uuid in instance_uuids:
                hosts = sorted((s for s in states if self._eligible(s, spec, wanted)),
                               key=lambda s: s.free.memory_mb, reverse=True)
                if not hosts:
                    break
                best = hosts[: CONF.filter_scheduler.host_subset_size]
                chosen = random.choice(best)
                chosen.consume(wanted)
                alternates = [h for h in hosts if h is not chosen][:num_alts]
                results.append([self._selection(s, instance_uuid)
                                for s in [chosen, *alternates]])
            if len(results) < spec.min_count:
                self._give_back(results, states, wanted)
                LOG.info("No valid host: %d of %d instances fit on %d hosts",
                         len(results), len(instance_uuids), len(states))
                raise exception.NoValidHost(reason="There are not enough hosts available.")
        return results

    def _give_back(self, results: list[list[Selection]], states: list[HostState],
                   wanted: capacity.Resources) -> None:
        by_uuid = {s.uuid: s for s in states}
        for host_list in results:
            chosen = by_uuid[host_list[0].compute_node_uuid]
            chosen.free = chosen.free + wanted
            chosen.num_instances -= 1

    def _selection(self, state: HostState, instance_uuid: str) -> Selection:
        return Selection(service_host=state.host, nodename=state.nodename,
                         compute_node_uuid=state.uuid, instance_uuid=instance_uuid,
                         availability_zone=self.host_manager.availability_zone(state))
