"""The FilterScheduler: ask placement which hosts can hold the request (after the
pre-filters), then per instance filter those hosts, weigh the survivors, choose at random
among the best `host_subset_size`, claim the choice in placement, and consume it in the
cached state so the next instance of the request sees it. Alternates are the next best
hosts, each with a placement candidate the conductor claims if a reschedule needs it."""

from __future__ import annotations

import logging
import random

import numpy as np

from novalite import collector, exception
from novalite.clients import placement as placement_client
from novalite.conf import CONF
from novalite.context import RequestContext
from novalite.objects.allocation_request import AllocationRequest
from novalite.objects.request_spec import RequestSpec, Selection
from novalite.scheduler import loader, request_filter
from novalite.scheduler.claims import Offers, PlacementClaims
from novalite.scheduler.cycle_state import CycleState
from novalite.scheduler.decision import Decision, top_weights
from novalite.scheduler.driver import Scheduler
from novalite.scheduler.engine import Engine, Weighed
from novalite.scheduler.host_manager import HostManager
from novalite.scheduler.host_state import HostState
from novalite.scheduler.host_table import HostTable
from novalite.scheduler.phases import Phases
from novalite.single_flight import SingleFlight

LOG = logging.getLogger(__name__)

# A choice: its row, the allocation request claimed for it (None without placement) and
# the weighing it came out of.
Choice = tuple[int, AllocationRequest | None, Weighed]


class FilterScheduler(Scheduler):
    def __init__(self, host_manager: HostManager | None = None, vectorized: bool = True,
                 reportclient: placement_client.SchedulerReportClient | None = None) -> None:
        super().__init__(host_manager)
        self.reportclient = reportclient or placement_client.report_client()
        self.offered = SingleFlight[Offers]()  # see novalite.scheduler.claims
        self.filters = loader.load_filters()  # a bad name stops start-up, saying which
        self.weighers = loader.load_weighers()
        self.engine = Engine(self.filters, self.weighers, vectorized)

    def select_destinations(self, ctx: RequestContext, spec: RequestSpec,
                            instance_uuids: list[str], return_alternates: bool
                            ) -> list[list[Selection]]:
        """Placement's candidates are asked for outside the host table's lock, as each
        of Nova's scheduler workers asks on its own: a slow or restarting placement
        delays this request, not every other one queued behind the lock. The table may
        move on meanwhile; a claim placement refuses sends the choice on, as always.

        The collector is paused throughout: a decision among 1,000 offered nodes still
        allocates a container for each, enough to set off collection passes, the full
        ones over a 10,000-host process's heap; paused, the decision's garbage is freed
        by its counts when it ends (without the pause the 1,000-host boot storm ran 11 %
        slower)."""
        with collector.paused():
            return self._select_destinations(ctx, spec, instance_uuids, return_alternates)

    def _select_destinations(self, ctx: RequestContext, spec: RequestSpec,
                             instance_uuids: list[str], return_alternates: bool
                             ) -> list[list[Selection]]:
        phases = Phases()
        with self.host_manager.lock:
            with phases.timed("refresh"):
                table = self.host_manager.refresh()
            request = request_filter.resource_request(spec, table,
                                                      self.host_manager.zone_aggregates)
        with phases.timed("placement"):
            claims = PlacementClaims(self.reportclient, ctx, spec, request,
                                     self.host_manager.claimant, self.offered)
        with self.host_manager.lock:
            if any(f.needs_instances(spec) for f in self.filters) or \
                    any(w.needs_instances(spec) for w in self.weighers):
                with phases.timed("instances"):
                    self.host_manager.fill_instances(table)
            chosen = self.select(table, spec, instance_uuids, return_alternates, claims,
                                 phases)
        LOG.info("Scheduled %d instance(s) among %d hosts: %s", len(chosen), len(table),
                 phases)
        return chosen

    def select(self, table: HostTable, spec: RequestSpec, instance_uuids: list[str],
               return_alternates: bool, claims: PlacementClaims | None = None,
               phases: Phases | None = None) -> list[list[Selection]]:
        """Choose for each instance in turn, consuming each choice in `table`; with
        `claims`, only among the hosts placement offered, claiming each choice. `spec`
        is left as it came: what the request learns goes in its CycleState."""
        num_alts = CONF.scheduler.max_attempts - 1 if return_alternates else 0
        results: list[list[Selection]] = []
        rows = request_filter.destination_rows(table, spec)
        if claims is not None:
            # a mask rather than np.intersect1d, which sorts both sides: 0.77 ms of a
            # decision at 10,000 hosts, against 0.03
            offered = np.zeros(len(table), dtype=bool)
            offered[[table.row_of[u] for u in claims.by_node if u in table.row_of]] = True
            rows = rows[offered[rows]]
        decision = Decision(len(rows), asked=claims.explain() if claims else "",
                            phases=phases or Phases())
        forced = bool(spec.force_hosts or spec.force_nodes)  # an admin's word: no filters
        cycle = CycleState.start(spec)
        for index, instance_uuid in enumerate(instance_uuids):
            # Each instance filters the survivors of the previous one, as in Nova, so
            # what a run-once filter removed stays removed.
            if not forced:
                with decision.phases.timed("filters"):
                    rows = self.engine.filter(table, rows, cycle.spec, index, decision)
            choice, rows = self._choose(table, rows, cycle.spec, instance_uuid, num_alts,
                                        claims, decision)
            if choice is None:
                break
            chosen, allocation, weighed = choice
            chosen_state = table.states[chosen]
            alternates = [table.states[r] for r in weighed.rows.tolist() if r != chosen]
            why = f"{decision.summary()} Top weights: {top_weights(weighed.hosts(table))}."
            LOG.debug("Chose %s for %s. %s", chosen_state.host, instance_uuid, why)
            host_list = [self._selection(chosen_state, cycle.spec, instance_uuid, allocation)]
            host_list += [self._selection(state, cycle.spec, instance_uuid,
                                          claims.alternate(state.uuid) if claims else None)
                          for state in alternates[:num_alts]]
            self._consume(chosen_state, cycle, instance_uuid)
            host_list[0].decision = why
            results.append(host_list)
        if len(results) < spec.min_count:
            for host_list in results:
                table.states[table.row_of[host_list[0].compute_node_uuid]] \
                    .release_request(spec)
            if claims is not None:
                claims.release_all()
            reason = f"There are not enough hosts available. {decision.summary()}"
            LOG.info("No valid host for %d of %d instances: %s",
                     len(instance_uuids) - len(results), len(instance_uuids), reason)
            raise exception.NoValidHost(reason=reason)
        return results

    def _choose(self, table: HostTable, rows: np.ndarray, spec: RequestSpec,
                instance_uuid: str, num_alts: int, claims: PlacementClaims | None,
                decision: Decision) -> tuple[Choice | None, np.ndarray]:
        """Weigh, pick at random among the best host_subset_size, and claim the pick; a
        host whose claim placement refuses (another scheduler was faster) drops out and
        the next best is tried. Returns the choice (None: nothing left) and the rows
        still in the running."""
        subset = max(1, CONF.filter_scheduler.host_subset_size)
        while len(rows):
            with decision.phases.timed("weighers"):
                weighed = self.engine.weigh(table, rows, spec, keep=subset + num_alts)
            chosen = random.choice(weighed.rows[:subset].tolist())
            if claims is None:
                return (chosen, None, weighed), rows
            with decision.phases.timed("claim"):
                allocation = claims.claim(table.states[chosen].uuid, instance_uuid)
            if allocation is not None:
                return (chosen, allocation, weighed), rows
            if instance_uuid in claims.abandoned:
                LOG.info("Instance %s stopped waiting for a host while it was being "
                         "scheduled", instance_uuid)
                return None, rows
            decision.record("placement claim", 1, [table.states[chosen].host])
            rows = rows[rows != chosen]
        return None, rows

    @staticmethod
    def _consume(state: HostState, cycle: CycleState, instance_uuid: str) -> None:
        """Count the choice in the cache; in a server group, also record where the member
        went, so the next instance of a multi-create sees it (as Nova does)."""
        state.consume_from_request(cycle.original)
        cycle.chose(state.host)
        if cycle.original.instance_group is not None:
            state.instances = state.instances | {instance_uuid}  # a new set: never shared

    def _selection(self, state: HostState, spec: RequestSpec, instance_uuid: str,
                   allocation: AllocationRequest | None) -> Selection:
        self.engine.record_limits(state, spec)
        return Selection(service_host=state.host, nodename=state.nodename,
                         compute_node_uuid=state.uuid, instance_uuid=instance_uuid,
                         availability_zone=self.host_manager.availability_zone(state),
                         limits=dict(state.limits), allocation_request=allocation,
                         allocation_request_version=placement_client.CANDIDATES_VERSION
                         if allocation is not None else None)
