"""The host manager: host states cached between requests, refreshed by what changed.

Each refresh reads only the compute nodes and services written since the previous one
(a compute report, a heartbeat, an enable/disable) and the aggregates only when their
marker moved, so its cost follows the rate of change, not the number of hosts. A node's
state is rebuilt only when its record changed; otherwise the cached state, with what this
scheduler consumed for its own recent choices, stays. Consuming in the cache keeps
back-to-back requests from all landing on a host before its compute reports the claims.
"""

from __future__ import annotations

import datetime
import heapq
import logging
import threading
import time
from typing import Any

from novalite import collector
from novalite.conf import CONF
from novalite.db.api import aggregates, build_progress, compute_nodes, instances, services
from novalite.objects.aggregate import Aggregate
from novalite.objects.claimant import Claimant, claimant
from novalite.objects.compute_node import ComputeNode
from novalite.objects.service import Service
from novalite.scheduler.host_state import HostState
from novalite.scheduler.host_table import HostTable
from novalite.service import liveness
from novalite.timeutils import utcnow

LOG = logging.getLogger(__name__)
BINARY = "novalite-compute"
# Rows are stamped by their writer's clock before commit; re-reading this much of the past
# catches a row committed after our previous read.
CLOCK_MARGIN = datetime.timedelta(seconds=2)
# That margin is re-read at most this often; the refreshes in between read only what was
# stamped since the refresh before them. At 1,000 hosts, fifty decisions a second each
# re-read two seconds of heartbeats and node writes: the same rows, again and again (and
# reading since the second of the refresh before still re-read half a second of them:
# 0.25 ms of CPU a decision, 0.8 ms at 10,000 hosts).
MARGIN_EVERY = datetime.timedelta(seconds=1)
# Aggregates are re-read at least this often even when their marker did not move (two
# edits of one row within a second leave the marker unchanged on MariaDB).
AGGREGATES_MAX_AGE = 60.0
# A refresh that first finds this many hosts or more freezes what the process holds then
# (see novalite.collector.freeze): the host table is the bulk of a scheduler's heap for
# life.
FREEZE_AT = 1000


class HostManager:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.table = HostTable()
        self._seen: dict[str, ComputeNode] = {}
        self._rows: dict[str, tuple[Any, ...]] = {}  # each node's row as last read
        self._service_rows: dict[int, tuple[Any, ...]] = {}  # and each service's, by id
        self._services: dict[str, Service] = {}
        self._lapses: list[tuple[datetime.datetime, str]] = []  # (up until, host) heap
        self._lapse_of: dict[str, datetime.datetime] = {}  # host -> its latest up until
        self._last_refresh: datetime.datetime | None = None
        self._last_margin: datetime.datetime | None = None  # the last refresh that re-read
        self._frozen = False
        self._by_host: dict[str, list[Aggregate]] = {}
        self._aggregates_marker: tuple | None = None
        self._aggregates_read = 0.0
        self._info_lock = threading.Lock()
        self._instance_info: dict[str, set[str]] = {}  # host -> its instances' uuids

    @property
    def lock(self) -> threading.Lock:
        """Held while one request chooses and consumes, so choices don't interleave."""
        return self._lock

    def refresh(self) -> HostTable:
        with collector.paused():
            table = self._refresh(utcnow())
            if not self._frozen and len(table) >= FREEZE_AT:
                collector.freeze()
                self._frozen = True
            return table

    def warm(self) -> None:
        """Refresh between requests (at start and periodically), as Nova's host manager
        reads the cloud when it starts: the next request reads only what changed since,
        not every host (at 10,000 hosts, 0.3 s of a first boot)."""
        with self._lock:
            self.refresh()

    def _refresh(self, now: datetime.datetime) -> HostTable:
        if self._last_refresh is None or self._last_margin is None:
            nodes, gone = compute_nodes.compute_node_get_all(), list[str]()
            changed_services = services.service_get_all(binary=BINARY,
                                                        known=self._service_rows)
            self._last_margin = now
        else:
            since = self._last_refresh
            if now - self._last_margin >= MARGIN_EVERY:
                # everything stamped since CLOCK_MARGIN before the last re-read: a row
                # committed late since then is read now
                since, self._last_margin = self._last_margin - CLOCK_MARGIN, now
            nodes, gone = compute_nodes.compute_node_get_changed(since, self._rows)
            changed_services = services.service_get_all(binary=BINARY, changed_since=since,
                                                        known=self._service_rows)
        self._last_refresh = now
        self._refresh_aggregates()
        down_after = float(CONF.service_down_time)
        touched = self._take_services(changed_services, now, down_after)
        for uuid in gone:
            if uuid in self.table.row_of:
                self.table.remove(uuid)
                del self._seen[uuid]
        fresh = []
        for node in nodes:
            if self._seen.get(node.uuid) != node:
                state = HostState.from_compute_node(node)
                state.aggregates = self._by_host.get(node.host, [])
                # Set here, not by the pass over changed services below, which would
                # visit every host at a first refresh.
                state.service_up, state.service_disabled = self._status(node.host, now,
                                                                        down_after)
                fresh.append(state)
                self._seen[node.uuid] = node
        self._refresh_service_status(touched, now, down_after)
        self.table.extend(fresh)
        return self.table

    def _take_services(self, changed: list[Service], now: datetime.datetime,
                       down_after: float) -> set[str]:
        """Keep the services read and queue when each lapses; the hosts whose status may
        have changed. A heartbeat that keeps an up host up changes nothing but its lapse:
        at 10,000 hosts a refresh reads a few thousand of those (every host beats every
        10 s), and checking each host's states for them was most of the refresh."""
        down_time = datetime.timedelta(seconds=down_after)
        touched = set()
        for svc in changed:
            old = self._services.get(svc.host)
            self._services[svc.host] = svc
            last = svc.last_seen_up or svc.updated_at or svc.created_at
            if last is not None and self._lapse_of.get(svc.host) != last + down_time:
                self._lapse_of[svc.host] = last + down_time
                heapq.heappush(self._lapses, (last + down_time, svc.host))
            if not (old is not None and old.disabled == svc.disabled
                    and liveness.service_is_up(old, now, down_after)
                    and liveness.service_is_up(svc, now, down_after)):
                touched.add(svc.host)
        return touched

    def _refresh_aggregates(self) -> None:
        marker = aggregates.aggregates_marker()
        if marker == self._aggregates_marker and \
                time.monotonic() - self._aggregates_read < AGGREGATES_MAX_AGE:
            return
        self._aggregates_marker, self._aggregates_read = marker, time.monotonic()
        self._by_host = aggregates.aggregates_by_host()
        for state in self.table.states:
            mine = self._by_host.get(state.host, [])
            if mine != state.aggregates:
                state.aggregates = mine

    def _refresh_service_status(self, touched: set[str], now: datetime.datetime,
                                down_after: float) -> None:
        """The states in the table of hosts whose service record changed, and of those
        whose last heartbeat just grew older than service_down_time (the heap of when
        each host's up status lapses; an entry a later heartbeat replaced is passed
        over)."""
        while self._lapses and self._lapses[0][0] < now:
            until, host = heapq.heappop(self._lapses)
            if self._lapse_of.get(host) == until:
                touched.add(host)
        for host in touched:
            if not (held := self.table.states_of(host)):
                continue
            up, disabled = self._status(host, now, down_after)
            for state in held:
                if state.service_up != up:
                    state.service_up = up
                if state.service_disabled != disabled:
                    state.service_disabled = disabled

    def _status(self, host: str, now: datetime.datetime, down_after: float
                ) -> tuple[bool, bool]:
        """Whether the host's compute service is up, and whether it is disabled (so is
        one without a service record)."""
        svc = self._services.get(host)
        return (svc is not None and liveness.service_is_up(svc, now, down_after),
                svc is None or svc.disabled)

    def claimant(self, instance_uuid: str) -> Claimant:
        """What the instance makes of a claim just made for it: still waiting for its
        host (a build, or a move, an evacuation or an unshelve asking for its
        destination), or not any more (ended by the build watchdog or a rollback whose
        caller gave up on this request, deleted, or placed by another handling of it)."""
        return claimant(build_progress.build_progress([instance_uuid]).get(instance_uuid))

    def fill_instances(self, table: HostTable) -> None:
        """Which instances each host holds (server group filters need it): what the
        computes told us, and the database for hosts that have not (or whose last sync
        disagreed)."""
        if not CONF.filter_scheduler.track_instance_changes:
            by_host = instances.instance_uuids_by_host()
            for state in table.states:
                state.instances = by_host.get(state.host, set())
            return
        with self._info_lock:
            missing = {s.host for s in table.states if s.host not in self._instance_info}
        if missing:
            from_db = instances.instance_uuids_by_host(
                missing if len(missing) < len(table) else None)
            with self._info_lock:
                for host in missing:
                    self._instance_info.setdefault(host, from_db.get(host, set()))
        info = self._instance_info
        for state in table.states:
            state.instances = info.get(state.host, set())

    # Instance info from the computes. Sets are replaced, never changed in place: a host
    # state may be reading the previous one.

    def update_instance_info(self, host: str, instance_uuids: list[str]) -> None:
        with self._info_lock:
            self._instance_info[host] = self._instance_info.get(host, set()) | \
                set(instance_uuids)

    def delete_instance_info(self, host: str, instance_uuid: str) -> None:
        with self._info_lock:
            if host in self._instance_info:
                self._instance_info[host] = self._instance_info[host] - {instance_uuid}

    def sync_instance_info(self, host: str, instance_uuids: list[str]) -> None:
        """A mismatch (a lost message) sends the host back to the database for the next
        request, as Nova does, rather than trusting either list."""
        with self._info_lock:
            if self._instance_info.get(host) != set(instance_uuids):
                LOG.info("The instance list of %s differs from the one it sent; reading it "
                         "from the database on the next request", host)
                self._instance_info.pop(host, None)

    def zone_aggregates(self, zone: str) -> list[str]:
        """The uuids of the aggregates that make up `zone`: placement's member_of for a
        request in that zone (hosts' aggregates are mirrored to placement)."""
        return sorted({agg.uuid for aggs in self._by_host.values() for agg in aggs
                       if agg.availability_zone == zone})

    @staticmethod
    def availability_zone(state: HostState) -> str:
        """The zone of the host's aggregates, else the default zone, as Nova names it."""
        zones = sorted({zone for a in state.aggregates
                        if (zone := a.availability_zone) is not None})
        return ",".join(zones) or CONF.default_availability_zone
