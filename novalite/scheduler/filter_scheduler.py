"""The FilterScheduler: per instance, filter the hosts, weigh the survivors, choose at
random among the best `host_subset_size`, and consume the choice in the cached state so
the next instance of the request sees it. Alternates are the next best hosts."""

from __future__ import annotations

import logging
import random

from novalite import exception
from novalite.conf import CONF
from novalite.context import RequestContext
from novalite.objects.request_spec import RequestSpec, Selection
from novalite.scheduler import loader
from novalite.scheduler.decision import Decision, top_weights
from novalite.scheduler.driver import Scheduler
from novalite.scheduler.host_manager import HostManager
from novalite.scheduler.host_state import HostState
from novalite.scheduler.weighers import weigh_hosts

LOG = logging.getLogger(__name__)


class FilterScheduler(Scheduler):
    def __init__(self, host_manager: HostManager | None = None) -> None:
        super().__init__(host_manager)
        self.filters = loader.load_filters()  # a bad name stops start-up, saying which
        self.weighers = loader.load_weighers()

    def select_destinations(self, ctx: RequestContext, spec: RequestSpec,
                            instance_uuids: list[str], return_alternates: bool
                            ) -> list[list[Selection]]:
        num_alts = CONF.scheduler.max_attempts - 1 if return_alternates else 0
        results: list[list[Selection]] = []
        with self.host_manager.lock:
            states = self.host_manager.get_host_states()
            if any(p.needs_instances(spec) for p in (*self.filters, *self.weighers)):
                self.host_manager.fill_instances(states)
            hosts = self.candidates(states, spec)
            decision = Decision(len(hosts))
            for index, instance_uuid in enumerate(instance_uuids):
                # Each instance filters the survivors of the previous one, as in Nova, so
                # what a run-once filter removed stays removed.
                hosts = self._filter(hosts, spec, index, decision)
                if not hosts:
                    break
                weighed = weigh_hosts(self.weighers, hosts, spec)
                best = weighed[: CONF.filter_scheduler.host_subset_size]
                chosen = random.choice(best)
                chosen.host_state.consume_from_request(spec)
                alternates = [w.host_state for w in weighed if w is not chosen][:num_alts]
                why = f"{decision.summary()} Top weights: {top_weights(weighed)}."
                LOG.debug("Chose %s for %s. %s", chosen.host_state.host, instance_uuid, why)
                host_list = [self._selection(h, instance_uuid)
                             for h in [chosen.host_state, *alternates]]
                host_list[0].decision = why
                results.append(host_list)
            if len(results) < spec.min_count:
                by_uuid = {s.uuid: s for s in states}
                for host_list in results:
                    by_uuid[host_list[0].compute_node_uuid].release_request(spec)
                reason = f"There are not enough hosts available. {decision.summary()}"
                LOG.info("No valid host for %d of %d instances: %s",
                         len(instance_uuids) - len(results), len(instance_uuids), reason)
                raise exception.NoValidHost(reason=reason)
        return results

    @staticmethod
    def candidates(states: list[HostState], spec: RequestSpec) -> list[HostState]:
        """Forced and ignored hosts apply before any filter, as in Nova."""
        hosts = [s for s in states if s.host not in spec.ignore_hosts]
        if spec.force_hosts:
            hosts = [s for s in hosts if s.host in spec.force_hosts]
        if spec.force_nodes:
            hosts = [s for s in hosts if s.nodename in spec.force_nodes]
        return hosts

    def _filter(self, hosts: list[HostState], spec: RequestSpec, index: int,
                decision: Decision) -> list[HostState]:
        for flt in self.filters:
            if not flt.run_filter_for_index(index):
                continue
            passed = [h for h in hosts if flt.host_passes(h, spec)]
            decision.record(flt.name, hosts, passed)
            hosts = passed
            if not hosts:
                break
        LOG.debug("Filter funnel for %s (instance %d): %s", spec.instance_uuid, index,
                  decision.summary())
        return hosts

    def _selection(self, state: HostState, instance_uuid: str) -> Selection:
        return Selection(service_host=state.host, nodename=state.nodename,
                         compute_node_uuid=state.uuid, instance_uuid=instance_uuid,
                         availability_zone=self.host_manager.availability_zone(state),
                         limits=dict(state.limits))
