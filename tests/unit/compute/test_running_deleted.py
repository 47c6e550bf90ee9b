"""A compute's look for guests whose servers were deleted while it was down."""

from __future__ import annotations

import datetime

import pytest

from novalite.compute.manager import ComputeManager
from novalite.objects import states
from novalite.objects.instance import Instance
from novalite.timeutils import utcnow


class Conductor:
    """Knows u-old (deleted an hour ago) and u-new (a second ago) as deleted; u-live is
    not deleted, so it is not answered."""

    def __init__(self) -> None:
        self.asked: list[list[str]] = []

    def instance_get_deleted(self, ctx, uuids):
        self.asked.append(sorted(uuids))
        now = utcnow()
        deleted = {"u-old": now - datetime.timedelta(hours=1),
                   "u-new": now - datetime.timedelta(seconds=1)}
        return [Instance(uuid=u, deleted_at=deleted[u]) for u in uuids if u in deleted]


@pytest.fixture
def manager(conf):
    manager = ComputeManager("h1")
    manager.driver.init_host("h1")
    for uuid in ("u-old", "u-new", "u-live"):
        manager.driver.spawn(None, Instance(uuid=uuid), None)
    manager.conductor = Conductor()  # type: ignore[assignment]
    yield manager
    manager.cleanup_host()


def _power(manager: ComputeManager, uuid: str) -> int:
    return manager.driver.get_info(Instance(uuid=uuid)).state


def test_the_guests_of_deleted_servers_are_reaped(manager):
    manager._cleanup_running_deleted_instances(None)
    assert manager.driver.list_instances() == ["u-live"]
    assert manager.conductor.asked == [["u-live", "u-new", "u-old"]]


def test_only_those_deleted_longer_than_the_timeout(manager, conf):
    conf.set_override("running_deleted_instance_timeout", 60)
    manager._cleanup_running_deleted_instances(None)
    assert sorted(manager.driver.list_instances()) == ["u-live", "u-new"]


def test_shutdown_powers_them_off_and_keeps_them(manager, conf):
    conf.set_override("running_deleted_instance_action", "shutdown")
    manager._cleanup_running_deleted_instances(None)
    assert len(manager.driver.list_instances()) == 3
    assert _power(manager, "u-old") == states.SHUTDOWN
    assert _power(manager, "u-live") == states.RUNNING


@pytest.mark.parametrize("action", ["log", "noop"])
def test_log_and_noop_leave_them_running(manager, conf, action, caplog):
    conf.set_override("running_deleted_instance_action", action)
    manager._cleanup_running_deleted_instances(None)
    assert len(manager.driver.list_instances()) == 3
    assert ("deleted but its guest is still on h1" in caplog.text) == (action == "log")


def test_it_runs_on_start_and_then_as_configured(manager):
    task = ComputeManager._cleanup_running_deleted_instances
    assert task._periodic_immediate and task._periodic_spacing() == 1800
