"""The FilterScheduler: per instance, filter the hosts, weigh the survivors, choose at
random among the best `host_subset_size`, and consume the choice in the cached state so
the next instance of the request sees it. Alternates are the next best hosts."""

from __future__ import annotations

import logging
import random

import numpy as np

from novalite import exception
from novalite.conf import CONF
from novalite.context import RequestContext
from novalite.objects.request_spec import RequestSpec, Selection
from novalite.scheduler import loader
from novalite.scheduler.decision import Decision, top_weights
from novalite.scheduler.driver import Scheduler
from novalite.scheduler.engine import Engine
from novalite.scheduler.host_manager import HostManager
from novalite.scheduler.host_state import HostState
from novalite.scheduler.host_table import HostTable

LOG = logging.getLogger(__name__)


class FilterScheduler(Scheduler):
    def __init__(self, host_manager: HostManager | None = None,
                 vectorized: bool = True) -> None:
        super().__init__(host_manager)
        self.filters = loader.load_filters()  # a bad name stops start-up, saying which
        self.weighers = loader.load_weighers()
        self.engine = Engine(self.filters, self.weighers, vectorized)

    def select_destinations(self, ctx: RequestContext, spec: RequestSpec,
                            instance_uuids: list[str], return_alternates: bool
                            ) -> list[list[Selection]]:
        with self.host_manager.lock:
            table = self.host_manager.refresh()
            if any(p.needs_instances(spec) for p in (*self.filters, *self.weighers)):
                self.host_manager.fill_instances(table)
            return self.select(table, spec, instance_uuids, return_alternates)

    def select(self, table: HostTable, spec: RequestSpec, instance_uuids: list[str],
               return_alternates: bool) -> list[list[Selection]]:
        """Choose for each instance in turn, consuming each choice in `table`."""
        num_alts = CONF.scheduler.max_attempts - 1 if return_alternates else 0
        subset = max(1, CONF.filter_scheduler.host_subset_size)
        results: list[list[Selection]] = []
        rows = self.candidates(table, spec)
        decision = Decision(len(rows))
        forced = bool(spec.force_hosts or spec.force_nodes)  # an admin's word: no filters
        for index, instance_uuid in enumerate(instance_uuids):
            # Each instance filters the survivors of the previous one, as in Nova, so
            # what a run-once filter removed stays removed.
            if not forced:
                rows = self.engine.filter(table, rows, spec, index, decision)
            if not len(rows):
                break
            weighed = self.engine.weigh(table, rows, spec, keep=subset + num_alts)
            best = weighed.rows[:subset].tolist()
            chosen = random.choice(best)
            chosen_state = table.states[chosen]
            alternates = [table.states[r] for r in weighed.rows.tolist() if r != chosen]
            why = f"{decision.summary()} Top weights: {top_weights(weighed.hosts(table))}."
            LOG.debug("Chose %s for %s. %s", chosen_state.host, instance_uuid, why)
            host_list = [self._selection(state, spec, instance_uuid)
                         for state in [chosen_state, *alternates[:num_alts]]]
            self._consume(chosen_state, spec, instance_uuid)
            host_list[0].decision = why
            results.append(host_list)
        if len(results) < spec.min_count:
            for host_list in results:
                table.states[table.row_of[host_list[0].compute_node_uuid]] \
                    .release_request(spec)
            reason = f"There are not enough hosts available. {decision.summary()}"
            LOG.info("No valid host for %d of %d instances: %s",
                     len(instance_uuids) - len(results), len(instance_uuids), reason)
            raise exception.NoValidHost(reason=reason)
        return results

    @staticmethod
    def _consume(state: HostState, spec: RequestSpec, instance_uuid: str) -> None:
        """Count the choice in the cache; in a server group, also record where the member
        went, so the next instance of a multi-create sees it (as Nova does)."""
        state.consume_from_request(spec)
        if spec.instance_group is not None:
            spec.instance_group.setdefault("hosts", []).append(state.host)
            state.instances = state.instances | {instance_uuid}  # a new set: never shared

    @staticmethod
    def candidates(table: HostTable, spec: RequestSpec) -> np.ndarray:
        """A requested destination, forced and ignored hosts apply before any filter, as
        in Nova."""
        keep = np.ones(len(table), dtype=bool)
        destination = spec.requested_destination or {}
        if destination.get("host"):
            keep &= table.rows_named([destination["host"]])
        if destination.get("node"):
            keep &= table.rows_of_nodes([destination["node"]])
        if spec.ignore_hosts:
            keep &= ~table.rows_named(spec.ignore_hosts)
        if spec.force_hosts:
            keep &= table.rows_named(spec.force_hosts)
        if spec.force_nodes:
            keep &= table.rows_of_nodes(spec.force_nodes)
        return np.flatnonzero(keep)

    def _selection(self, state: HostState, spec: RequestSpec,
                   instance_uuid: str) -> Selection:
        self.engine.record_limits(state, spec)
        return Selection(service_host=state.host, nodename=state.nodename,
                         compute_node_uuid=state.uuid, instance_uuid=instance_uuid,
                         availability_zone=self.host_manager.availability_zone(state),
                         limits=dict(state.limits))
