"""The host manager: host states cached between requests.

A node's state is rebuilt from its database record only when the record changed since
the last look (a compute report); otherwise the cached state, with what this scheduler
consumed for its own recent choices, stays. Consuming in the cache keeps back-to-back
requests from all landing on a host before its compute reports the claims.
"""

from __future__ import annotations

import threading

from novalite import servicegroup
from novalite.conf import CONF
from novalite.db.api import aggregates, compute_nodes, instances, services
from novalite.objects.compute_node import ComputeNode
from novalite.scheduler.host_state import HostState


class HostManager:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._states: dict[str, HostState] = {}
        self._seen: dict[str, ComputeNode] = {}

    @property
    def lock(self) -> threading.Lock:
        """Held while one request chooses and consumes, so choices don't interleave."""
        return self._lock

    def get_host_states(self) -> list[HostState]:
        svcs = {s.host: s for s in services.service_get_all(binary="novalite-compute")}
        by_host = aggregates.aggregates_by_host()
        states = []
        for node in compute_nodes.compute_node_get_all():
            state = self._states.get(node.uuid)
            if state is None or self._seen.get(node.uuid) != node:
                state = HostState.from_compute_node(node)
                self._states[node.uuid] = state
                self._seen[node.uuid] = node
            svc = svcs.get(node.host)
            state.service_up = svc is not None and servicegroup.service_is_up(svc)
            state.service_disabled = svc is None or svc.disabled
            state.aggregates = by_host.get(node.host, [])
            states.append(state)
        return states

    @staticmethod
    def fill_instances(states: list[HostState]) -> None:
        """Which instances each host holds (server group filters need it)."""
        by_host = instances.instance_uuids_by_host()
        for state in states:
            state.instances = by_host.get(state.host, set())

    @staticmethod
    def availability_zone(state: HostState) -> str:
        """The zone of the host's aggregates, else the default zone, as Nova names it."""
        zones = sorted({a["metadata"]["availability_zone"] for a in state.aggregates
                        if "availability_zone" in a["metadata"]})
        return ",".join(zones) or CONF.default_availability_zone
