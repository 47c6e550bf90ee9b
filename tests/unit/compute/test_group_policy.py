"""The compute's late server group check (novalite.compute.group_policy)."""

import pytest

from novalite import exception
from novalite.compute import group_policy
from novalite.context import RequestContext
from tests import builders

CTX = RequestContext(user_id="u", project_id="p")


@pytest.mark.parametrize("policy, rules, hosts, host, violated", [
    ("anti-affinity", {}, [], "h1", None),
    ("anti-affinity", {}, ["h2"], "h1", None),
    ("anti-affinity", {}, ["h1"], "h1", "Anti-affinity"),
    ("anti-affinity", {"max_server_per_host": 2}, ["h1"], "h1", None),
    ("anti-affinity", {"max_server_per_host": 2}, ["h1", "h1"], "h1", "Anti-affinity"),
    ("affinity", {}, [], "h1", None),
    ("affinity", {}, ["h1"], "h1", None),
    ("affinity", {}, ["h2"], "h1", "Affinity"),
    ("soft-anti-affinity", {}, ["h1"], "h1", None),
])
def test_policy_violation(policy, rules, hosts, host, violated):
    placed = {"policy": policy, "rules": rules, "hosts": hosts}
    assert group_policy.policy_violation(placed, host) == violated


class Conductor:
    def __init__(self, placed):
        self.placed = placed
        self.calls = 0

    def instance_group_placed_before(self, ctx, group_uuid, instance_uuid):
        self.calls += 1
        return self.placed


def test_late_check_raises_unless_disabled(conf):
    spec = builders.request_spec(instance_group={"uuid": "g", "policy": "anti-affinity"})
    conductor = Conductor({"policy": "anti-affinity", "rules": {}, "hosts": ["h1"]})
    with pytest.raises(exception.GroupAffinityViolation,
                       match="Anti-affinity instance group policy was violated"):
        group_policy.validate_placement(conductor, CTX, spec, "i-1", "h1")
    group_policy.validate_placement(conductor, CTX, spec, "i-1", "h2")
    conf.set_override("disable_group_policy_check_upcall", True, group="workarounds")
    group_policy.validate_placement(conductor, CTX, spec, "i-1", "h1")
    assert conductor.calls == 2
    soft = builders.request_spec(instance_group={"uuid": "g", "policy": "soft-affinity"})
    group_policy.validate_placement(conductor, CTX, soft, "i-1", "h1")
    assert conductor.calls == 2
