"""Host states: the scheduler's view of each compute node, cached between requests.

A node's state is rebuilt from its database record only when the record changed since
the last look (a compute report); otherwise the cached state, with the resources this
scheduler consumed for its own recent choices, stays. Consuming in the cache keeps
back-to-back requests from all landing on a host before its compute reports the claims.
"""

from __future__ import annotations

import dataclasses
import threading

from novalite import servicegroup
from novalite.compute import capacity
from novalite.conf import CONF
from novalite.db.api import compute_nodes, services
from novalite.objects.compute_node import ComputeNode


@dataclasses.dataclass
class HostState:
    host: str
    nodename: str
    uuid: str
    node: ComputeNode
    free: capacity.Resources
    service_up: bool = True
    service_disabled: bool = False
    num_instances: int = 0

    def consume(self, wanted: capacity.Resources) -> None:
        self.free = self.free - wanted
        self.num_instances += 1


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
        states = []
        for node in compute_nodes.compute_node_get_all():
            state = self._states.get(node.uuid)
            if state is None or self._seen.get(node.uuid) != node:
                state = HostState(host=node.host, nodename=node.hypervisor_hostname,
                                  uuid=node.uuid, node=node, free=capacity.free(node),
                                  num_instances=node.running_vms)
                self._states[node.uuid] = state
                self._seen[node.uuid] = node
            svc = svcs.get(node.host)
            state.service_up = svc is not None and servicegroup.service_is_up(svc)
            state.service_disabled = svc is None or svc.disabled
            states.append(state)
        return states

    @staticmethod
    def availability_zone(state: HostState) -> str:
        return CONF.default_availability_zone
