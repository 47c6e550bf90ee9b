"""The compute policy on oslo.policy: Nova's defaults, operator overrides, broken files."""

from __future__ import annotations

import inspect
import os

import pytest
from oslo_policy import _checks
from oslo_policy import policy as oslo_policy

from novalite import exception
from novalite.api import policy
from novalite.api.faults import HTTPFault
from novalite.context import RequestContext

STOP = "os_compute_api:servers:stop"
SHOW = "os_compute_api:servers:show"


def _ctx(*roles: str, project: str = "p1", admin: bool = False) -> RequestContext:
    return RequestContext(user_id="u1", project_id=project, roles=list(roles), is_admin=admin)


MEMBER = _ctx("member", "reader")
READER = _ctx("reader")
ADMIN = _ctx("admin", "member", "reader", project="admin", admin=True)


@pytest.fixture(autouse=True)
def fresh_policy(conf):
    policy.reset()
    yield
    policy.reset()


def _write(tmp_path, text: str, name: str = "policy.yaml") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_defaults_are_novas_check_strings():
    assert policy.ADMIN == "rule:context_is_admin"
    assert policy.BASE_RULES["context_is_admin"] == "role:admin"
    assert policy.BASE_RULES["project_reader_api"] == "role:reader and project_id:%(project_id)s"
    assert policy.DEFAULTS[STOP] == policy.PROJECT_MEMBER_OR_ADMIN
    assert policy.DEFAULTS[SHOW] == policy.PROJECT_READER_OR_ADMIN


@pytest.mark.parametrize(("ctx", "rule", "project", "allowed"), [
    (MEMBER, STOP, "p1", True),
    (MEMBER, STOP, "p2", False),
    (MEMBER, SHOW, "p1", True),
    (READER, SHOW, "p1", True),
    (READER, SHOW, "p2", False),
    (READER, STOP, "p1", False),
    (_ctx(), SHOW, "p1", False),  # no role at all
    (ADMIN, STOP, "p2", True),
    (MEMBER, "os_compute_api:os-aggregates:index", None, False),
    (ADMIN, "os_compute_api:os-aggregates:index", None, True),
    (_ctx(), "os_compute_api:os-availability-zone:list", None, True),
])
def test_personas(ctx, rule, project, allowed):
    assert policy.check(ctx, rule, project) is allowed


def test_the_target_defaults_to_the_callers_project():
    assert policy.check(MEMBER, "os_compute_api:servers:create")
    assert not policy.check(READER, "os_compute_api:servers:create")


def test_every_default_is_a_registered_rule_an_admin_passes():
    for rule in policy.DEFAULTS:
        assert policy.check(ADMIN, rule, "any-project"), rule


def test_a_refusal_is_novas_403():
    with pytest.raises(HTTPFault) as caught:
        policy.authorize(READER, STOP, "p1")
    assert (caught.value.code, caught.value.message) == (
        403, f"Policy doesn't allow {STOP} to be performed.")


def test_an_unknown_rule_is_an_error_not_a_silent_refusal():
    with pytest.raises(Exception, match="has not been registered"):
        policy.check(ADMIN, "os_compute_api:servers:no-such-rule")


def test_an_override_file_changes_a_rule(conf, tmp_path):
    path = _write(tmp_path, f'"{STOP}": "role:admin"\n')
    conf.set_override("policy_file", path, group="oslo_policy")
    assert not policy.check(MEMBER, STOP, "p1")
    assert policy.check(ADMIN, STOP, "p1")
    assert policy.check(MEMBER, "os_compute_api:servers:start", "p1")  # the rest unchanged


def test_overriding_a_base_rule_changes_every_rule_built_on_it(conf, tmp_path):
    path = _write(tmp_path, '"project_member_api": "role:operator and '
                            'project_id:%(project_id)s"\n')
    conf.set_override("policy_file", path, group="oslo_policy")
    assert not policy.check(MEMBER, STOP, "p1")
    assert policy.check(_ctx("operator"), STOP, "p1")


def test_an_edited_file_is_picked_up(conf, tmp_path):
    path = _write(tmp_path, f'"{STOP}": "role:admin"\n')
    conf.set_override("policy_file", path, group="oslo_policy")
    assert not policy.check(MEMBER, STOP, "p1")
    _write(tmp_path, f'"{STOP}": "@"\n')
    later = os.stat(path).st_mtime + 5
    os.utime(path, (later, later))
    assert policy.check(MEMBER, STOP, "p1")


def test_a_missing_file_means_the_defaults(conf, tmp_path):
    conf.set_override("policy_file", str(tmp_path / "absent.yaml"), group="oslo_policy")
    assert policy.check(MEMBER, STOP, "p1")
    assert not policy.check(READER, STOP, "p1")


def test_a_broken_file_is_a_clear_error_every_time(conf, tmp_path):
    path = _write(tmp_path, f'"{STOP}": [[[\n')
    conf.set_override("policy_file", path, group="oslo_policy")
    for _ in range(2):  # never a silent fall back to the defaults
        with pytest.raises(exception.PolicyFileInvalid, match=f"The policy file {path} "
                                                              "cannot be used: "):
            policy.check(MEMBER, STOP, "p1")



def test_the_files_are_looked_for_at_most_once_a_second(conf, tmp_path, monkeypatch):
    path = _write(tmp_path, f'"{STOP}": "role:admin"\n')
    conf.set_override("policy_file", path, group="oslo_policy")
    searched = []
    find = type(conf).find_file
    monkeypatch.setattr(type(conf), "find_file",
                        lambda self, name: searched.append(name) or find(self, name))
    for _ in range(5):
        assert not policy.check(MEMBER, STOP, "p1")
    # once by us (file and policy.d), once by oslo.policy when it first reads them
    assert searched.count(path) <= 2 and searched.count("policy.d") <= 2


def test_a_check_works_out_no_signature(monkeypatch):
    """oslo.policy asks every node of a rule for its signature on every check: each kind
    of check has its own up front, rather than inspect working it out each time."""
    assert policy.check(MEMBER, STOP, "p1")  # the enforcer is made

    def worked_out(*args, **kwargs):
        raise AssertionError("a signature was worked out")
    monkeypatch.setattr(inspect, "_signature_from_function", worked_out)
    assert policy.check(MEMBER, STOP, "p1") and not policy.check(READER, STOP, "p1")


def test_a_check_kind_with_the_legacy_signature_still_works(conf, tmp_path, monkeypatch):
    """oslo.policy calls a check whose __call__ takes no current rule without one, as
    the signature given up front says."""

    class Legacy(oslo_policy.Check):
        def __call__(self, target, creds, enforcer):
            return self.match == creds["user_id"]

    monkeypatch.setitem(_checks.registered_checks, "legacy", Legacy)
    conf.set_override("policy_file", _write(tmp_path, f'"{STOP}": "legacy:u1"\n'),
                      group="oslo_policy")
    assert policy.check(MEMBER, STOP, "p1")
    assert not policy.check(RequestContext(user_id="u2", project_id="p1", roles=["member"]),
                            STOP, "p1")


def test_a_decision_is_worked_out_once_until_the_rules_change(conf, tmp_path, monkeypatch):
    path = _write(tmp_path, f'"{STOP}": "role:admin"\n')
    conf.set_override("policy_file", path, group="oslo_policy")
    asked = []
    authorize = oslo_policy.Enforcer.authorize
    monkeypatch.setattr(oslo_policy.Enforcer, "authorize",
                        lambda self, rule, *a, **k: asked.append(rule) or authorize(
                            self, rule, *a, **k))
    for _ in range(3):
        assert not policy.check(MEMBER, STOP, "p1")
        assert policy.check(ADMIN, STOP, "p1")
        assert not policy.check_target(MEMBER, STOP, {"project_id": "p1", "ids": ["a"]})
    assert asked.count(STOP) == 2 + 3  # the list in the last target: asked every time
    _write(tmp_path, f'"{STOP}": "@"\n')
    later = os.stat(path).st_mtime + 5
    os.utime(path, (later, later))
    assert policy.check(MEMBER, STOP, "p1")
