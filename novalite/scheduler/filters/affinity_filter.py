"""Server group and instance affinity filters.

The request spec carries a server group as an InstanceGroup (policy, rules, hosts,
members); the same_host / different_host / build_near_host_ip hints name instances or an
address. The host's instances come from host_state.instances.
"""

import ipaddress

import numpy as np

from novalite.objects.request_spec import InstanceGroup, RequestSpec
from novalite.scheduler.filters import BaseHostFilter
from novalite.scheduler.host_state import HostState
from novalite.scheduler.host_table import HostTable


def _group(spec: RequestSpec, policy: str) -> InstanceGroup | None:
    group = spec.instance_group
    return group if group is not None and group.policy == policy else None


class _GroupFilter(BaseHostFilter):
    def needs_instances(self, spec: RequestSpec) -> bool:
        return bool(spec.instance_group)


class ServerGroupAffinityFilter(_GroupFilter):
    def host_passes(self, host_state: HostState, spec: RequestSpec) -> bool:
        group = _group(spec, "affinity")
        if group is None or not group.hosts:
            return True  # no group, or the first member: anywhere starts the group
        return host_state.host in group.hosts

    def filter_array(self, table: HostTable, rows: np.ndarray,
                     spec: RequestSpec) -> np.ndarray:
        group = _group(spec, "affinity")
        if group is None or not group.hosts:
            return np.ones(len(rows), dtype=bool)
        return table.rows_named(group.hosts)[rows]

    def explain(self, host_state: HostState, spec: RequestSpec) -> str:
        group = _group(spec, "affinity")
        return f"not a host of the group (on {', '.join(group.hosts)})" if group else ""


class ServerGroupAntiAffinityFilter(_GroupFilter):
    def host_passes(self, host_state: HostState, spec: RequestSpec) -> bool:
        group = _group(spec, "anti-affinity")
        if group is None:
            return True
        if spec.instance_uuid in host_state.instances:
            return True  # a move: the instance's own host does not count against it
        return len(set(group.members) & host_state.instances) < group.max_server_per_host

    def filter_array(self, table: HostTable, rows: np.ndarray,
                     spec: RequestSpec) -> np.ndarray:
        group = _group(spec, "anti-affinity")
        if group is None:
            return np.ones(len(rows), dtype=bool)
        own = table.rows_holding([spec.instance_uuid])[rows] > 0
        return own | (table.rows_holding(group.members)[rows] < group.max_server_per_host)

    def explain(self, host_state: HostState, spec: RequestSpec) -> str:
        group = _group(spec, "anti-affinity")
        if group is None:
            return ""
        held = len(set(group.members) & host_state.instances)
        return f"holds {held} of the group's members, {group.max_server_per_host} allowed"


def _uuids(spec: RequestSpec, hint: str) -> list[str]:
    value = spec.get_scheduler_hint(hint)
    if not value:
        return []
    return [value] if isinstance(value, str) else list(value)


class _InstanceHintFilter(BaseHostFilter):
    run_filter_once_per_request = True
    hint = ""

    def needs_instances(self, spec: RequestSpec) -> bool:
        return bool(_uuids(spec, self.hint))


class SameHostFilter(_InstanceHintFilter):
    """Hint same_host: only hosts holding at least one of the named instances."""

    hint = "same_host"

    def host_passes(self, host_state: HostState, spec: RequestSpec) -> bool:
        wanted = _uuids(spec, self.hint)
        return not wanted or any(uuid in host_state.instances for uuid in wanted)

    def filter_array(self, table: HostTable, rows: np.ndarray,
                     spec: RequestSpec) -> np.ndarray:
        wanted = _uuids(spec, self.hint)
        if not wanted:
            return np.ones(len(rows), dtype=bool)
        return table.rows_holding(wanted)[rows] > 0

    def explain(self, host_state: HostState, spec: RequestSpec) -> str:
        return "holds none of the same_host instances"


class DifferentHostFilter(_InstanceHintFilter):
    """Hint different_host: only hosts holding none of the named instances."""

    hint = "different_host"

    def host_passes(self, host_state: HostState, spec: RequestSpec) -> bool:
        return not any(uuid in host_state.instances for uuid in _uuids(spec, self.hint))

    def filter_array(self, table: HostTable, rows: np.ndarray,
                     spec: RequestSpec) -> np.ndarray:
        return table.rows_holding(_uuids(spec, self.hint))[rows] == 0

    def explain(self, host_state: HostState, spec: RequestSpec) -> str:
        held = [u for u in _uuids(spec, self.hint) if u in host_state.instances]
        return f"holds different_host instance {', '.join(held)}"


class SimpleCIDRAffinityFilter(BaseHostFilter):
    """Hints build_near_host_ip and cidr (default /24): hosts in that network."""

    run_filter_once_per_request = True

    def host_passes(self, host_state: HostState, spec: RequestSpec) -> bool:
        near = spec.get_scheduler_hint("build_near_host_ip")
        if not near:
            return True
        cidr = spec.get_scheduler_hint("cidr", "/24")
        try:
            network = ipaddress.ip_network(f"{near}{cidr}", strict=False)
            return ipaddress.ip_address(host_state.host_ip or "") in network
        except ValueError:
            return False  # an unusable address or prefix matches no host

    def filter_array(self, table: HostTable, rows: np.ndarray,
                     spec: RequestSpec) -> np.ndarray | None:
        if spec.get_scheduler_hint("build_near_host_ip"):
            return None
        return np.ones(len(rows), dtype=bool)
