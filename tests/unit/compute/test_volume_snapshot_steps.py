"""The compute side of assisted volume snapshots (VolumeSnapshotSteps in the manager):
the driver asked, and the outcome reported to the volume service as Nova's libvirt
driver reports it; a report the volume service refuses is logged, never raised."""

import logging

import pytest

from novalite.clients import cinder
from novalite.compute import volume_snapshot_steps
from novalite.compute.manager import ComputeManager
from novalite.context import get_admin_context
from novalite.objects import states
from novalite.objects.instance import Instance

CTX = get_admin_context()
INSTANCE = Instance(uuid="i-1", vm_state=states.ACTIVE)
CREATE = {"snapshot_id": "snap-1", "type": "qcow2", "new_file": "a.qcow2"}


class Volumes:
    """The volume service's snapshot action, as the compute's client sends it."""

    def __init__(self, refuse: bool = False):
        self.reports: list[tuple[str, str]] = []
        self.refuse = refuse

    def client(self, ctx, admin=False):
        assert admin, "reported with the service's credentials"
        return self

    def update_snapshot_status(self, snapshot_id, status):
        self.reports.append((snapshot_id, status))
        if self.refuse:
            raise cinder.CinderError(404, f"Snapshot {snapshot_id} could not be found.")


@pytest.fixture
def volumes(monkeypatch):
    found = Volumes()
    monkeypatch.setattr(volume_snapshot_steps.cinder, "Client", found.client)
    return found


@pytest.fixture
def manager():
    made = ComputeManager("host1", "fake")
    made.driver.init_host("host1")
    made.driver.instances[INSTANCE.uuid] = states.RUNNING
    made.driver.consoles[INSTANCE.uuid] = []
    made.driver.volumes[INSTANCE.uuid] = {"v1": {"serial": "v1"}}
    made.driver.volume_chains.pop(INSTANCE.uuid, None)  # a host's fake driver outlives it
    return made


def test_a_snapshot_taken_is_reported_creating_for_the_volume_service_to_finish(
        manager, volumes):
    manager.volume_snapshot_create(CTX, INSTANCE, "v1", CREATE)
    assert manager.driver.volume_chains[INSTANCE.uuid]["v1"] == ["volume-v1", "a.qcow2"]
    assert volumes.reports == [("snap-1", "creating")]
    manager.volume_snapshot_delete(CTX, INSTANCE, "v1", "snap-1",
                                   {"file_to_merge": None, "merge_target_file": None})
    assert manager.driver.volume_chains[INSTANCE.uuid]["v1"] == ["a.qcow2"]
    assert volumes.reports[-1] == ("snap-1", "deleting")


def test_a_driver_failure_is_reported_and_raised(manager, volumes):
    with pytest.raises(Exception, match="Found no disk to snapshot"):
        manager.volume_snapshot_create(CTX, INSTANCE, "not-attached", CREATE)
    with pytest.raises(Exception, match="Cannot merge nope"):
        manager.volume_snapshot_delete(CTX, INSTANCE, "v1", "snap-2",
                                       {"file_to_merge": "nope", "merge_target_file": None})
    assert volumes.reports == [("snap-1", "error"), ("snap-2", "error_deleting")]
    assert manager.driver.volume_chains[INSTANCE.uuid]["v1"] == ["volume-v1"]  # untouched


def test_a_refused_report_is_logged_not_raised(manager, volumes, caplog):
    volumes.refuse = True
    with caplog.at_level(logging.ERROR, logger=volume_snapshot_steps.__name__):
        manager.volume_snapshot_create(CTX, INSTANCE, "v1", CREATE)
    assert volumes.reports == [("snap-1", "creating")]
    assert "Could not report snapshot snap-1 creating" in caplog.text
