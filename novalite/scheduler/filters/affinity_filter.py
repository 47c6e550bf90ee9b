"""Server group and instance affinity filters.

The request spec carries a server group as {"policy", "rules", "hosts", "members"}; the
same_host / different_host / build_near_host_ip hints name instances or an address. The
host's instances come from host_state.instances.
"""

import ipaddress

import numpy as np

from novalite.scheduler.filters import BaseHostFilter


def _group(spec, policy: str) -> dict | None:
    group = spec.instance_group
    return group if group and group.get("policy") == policy else None


class _GroupFilter(BaseHostFilter):
    def needs_instances(self, spec) -> bool:
        return bool(spec.instance_group)


class ServerGroupAffinityFilter(_GroupFilter):
    def host_passes(self, host_state, spec) -> bool:
        group = _group(spec, "affinity")
        if group is None or not group.get("hosts"):
            return True  # no group, or the first member: anywhere starts the group
        return host_state.host in group["hosts"]

    def filter_array(self, table, rows, spec):
        group = _group(spec, "affinity")
        if group is None or not group.get("hosts"):
            return np.ones(len(rows), dtype=bool)
        return table.rows_named(group["hosts"])[rows]


class ServerGroupAntiAffinityFilter(_GroupFilter):
    def host_passes(self, host_state, spec) -> bool:
        group = _group(spec, "anti-affinity")
        if group is None:
            return True
        if spec.instance_uuid in host_state.instances:
            return True  # a move: the instance's own host does not count against it
        return len(set(group.get("members") or []) & host_state.instances) < _limit(group)

    def filter_array(self, table, rows, spec):
        group = _group(spec, "anti-affinity")
        if group is None:
            return np.ones(len(rows), dtype=bool)
        own = table.rows_holding([spec.instance_uuid])[rows] > 0
        return own | (table.rows_holding(group.get("members") or [])[rows] < _limit(group))


def _limit(group: dict) -> int:
    return int((group.get("rules") or {}).get("max_server_per_host", 1))


def _uuids(spec, hint: str) -> list[str]:
    value = spec.get_scheduler_hint(hint)
    if not value:
        return []
    return [value] if isinstance(value, str) else list(value)


class _InstanceHintFilter(BaseHostFilter):
    run_filter_once_per_request = True
    hint = ""

    def needs_instances(self, spec) -> bool:
        return bool(_uuids(spec, self.hint))


class SameHostFilter(_InstanceHintFilter):
    """Hint same_host: only hosts holding at least one of the named instances."""

    hint = "same_host"

    def host_passes(self, host_state, spec) -> bool:
        wanted = _uuids(spec, self.hint)
        return not wanted or any(uuid in host_state.instances for uuid in wanted)

    def filter_array(self, table, rows, spec):
        wanted = _uuids(spec, self.hint)
        if not wanted:
            return np.ones(len(rows), dtype=bool)
        return table.rows_holding(wanted)[rows] > 0


class DifferentHostFilter(_InstanceHintFilter):
    """Hint different_host: only hosts holding none of the named instances."""

    hint = "different_host"

    def host_passes(self, host_state, spec) -> bool:
        return not any(uuid in host_state.instances for uuid in _uuids(spec, self.hint))

    def filter_array(self, table, rows, spec):
        return table.rows_holding(_uuids(spec, self.hint))[rows] == 0


class SimpleCIDRAffinityFilter(BaseHostFilter):
    """Hints build_near_host_ip and cidr (default /24): hosts in that network."""

    run_filter_once_per_request = True

    def host_passes(self, host_state, spec) -> bool:
        near = spec.get_scheduler_hint("build_near_host_ip")
        if not near:
            return True
        cidr = spec.get_scheduler_hint("cidr", "/24")
        try:
            network = ipaddress.ip_network(f"{near}{cidr}", strict=False)
            return ipaddress.ip_address(host_state.host_ip or "") in network
        except ValueError:
            return False  # an unusable address or prefix matches no host

    def filter_array(self, table, rows, spec):
        if spec.get_scheduler_hint("build_near_host_ip"):
            return None
        return np.ones(len(rows), dtype=bool)
