"""Server group filters: hard affinity and anti-affinity.

The request spec carries the group as {"policy", "rules", "hosts", "members"}; the
host's instances come from host_state.instances.
"""

from novalite.scheduler.filters import BaseHostFilter


def _group(spec, policy: str) -> dict | None:
    group = spec.instance_group
    return group if group and group.get("policy") == policy else None


class ServerGroupAffinityFilter(BaseHostFilter):
    def host_passes(self, host_state, spec) -> bool:
        group = _group(spec, "affinity")
        if group is None or not group.get("hosts"):
            return True  # no group, or the first member: anywhere starts the group
        return host_state.host in group["hosts"]


class ServerGroupAntiAffinityFilter(BaseHostFilter):
    def host_passes(self, host_state, spec) -> bool:
        group = _group(spec, "anti-affinity")
        if group is None:
            return True
        if spec.instance_uuid in host_state.instances:
            return True  # a move: the instance's own host does not count against it
        limit = int((group.get("rules") or {}).get("max_server_per_host", 1))
        members = set(group.get("members") or [])
        return len(members & host_state.instances) < limit
