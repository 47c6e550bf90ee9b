"""The compute side of attach and detach (VolumeSteps in the manager), with the fake
driver, a conductor that keeps the mappings in memory and a volume service stand-in:
the order of the steps, what a failure undoes, and what a restart finishes or undoes."""

import pytest

from novalite import exception
from novalite.clients import cinder
from novalite.compute import volume_steps
from novalite.compute.manager import ComputeManager
from novalite.context import get_admin_context
from novalite.objects import states
from novalite.objects.block_device import BlockDeviceMapping
from novalite.objects.instance import Instance

CTX = get_admin_context()
INSTANCE = Instance(uuid="i-1", vm_state=states.ACTIVE)
CONNECTION = {"driver_volume_type": "nbd", "data": {"host": "h", "port": 1, "export": "v1"}}


class Conductor:
    """The mappings, and what else the manager records."""

    def __init__(self):
        self.bdms: dict[str, BlockDeviceMapping] = {}
        self.calls = []

    def block_device_mapping_get_all_by_instance(self, ctx, instance_uuid):
        return [b for b in self.bdms.values() if b.instance_uuid == instance_uuid]

    def block_device_mapping_update(self, ctx, bdm_uuid, values):
        self.calls.append(("update", bdm_uuid))
        for key, value in values.items():
            setattr(self.bdms[bdm_uuid], key, value)
        return self.bdms[bdm_uuid]

    def block_device_mapping_destroy(self, ctx, bdm_uuid):
        self.calls.append(("destroy", bdm_uuid))
        self.bdms.pop(bdm_uuid, None)

    def __getattr__(self, name):
        return lambda *args, **kwargs: self.calls.append((name, args))


class Volumes:
    """The volume service: attachments by id, volumes' statuses, and what it was asked."""

    def __init__(self):
        self.attachments = {}
        self.statuses = {}
        self.shared = set()  # the multiattach volumes
        self.calls = []
        self.fail = None

    def __call__(self, ctx, admin=False):
        return self

    def _asked(self, name, *args):
        self.calls.append((name, *args))
        if name == self.fail:
            raise cinder.CinderError(500, f"{name} failed")

    def attachment_create(self, volume_id, instance_uuid):
        self._asked("create", volume_id)
        made = {"id": f"a-{volume_id}-{len(self.calls)}", "status": "reserved"}
        self.attachments[made["id"]] = made
        return made

    def attachment_update(self, attachment_id, connector):
        self._asked("update", attachment_id, connector["mountpoint"])
        self.attachments[attachment_id]["status"] = "attaching"
        return dict(CONNECTION)

    def attachment_complete(self, attachment_id):
        self._asked("complete", attachment_id)
        self.attachments[attachment_id]["status"] = "attached"

    def attachment_delete(self, attachment_id):
        self._asked("delete", attachment_id)
        self.attachments.pop(attachment_id, None)

    def attachment_get(self, attachment_id):
        if attachment_id not in self.attachments:
            raise cinder.CinderError(404, "gone")
        return self.attachments[attachment_id]

    def attachment_get_all(self, instance_uuid):
        return [{"id": a} for a in self.attachments]

    def get(self, volume_id):
        return {"id": volume_id, "status": self.statuses.get(volume_id, "in-use"),
                "multiattach": volume_id in self.shared}

    def roll_detaching(self, volume_id):
        self._asked("roll", volume_id)

    def delete(self, volume_id):
        self._asked("delete-volume", volume_id)


@pytest.fixture
def manager(conf, monkeypatch):
    manager = ComputeManager("h1")
    manager.driver.init_host("h1")
    manager.driver.spawn(CTX, INSTANCE, None)
    manager.conductor = Conductor()
    volumes = Volumes()
    monkeypatch.setattr(volume_steps.cinder, "Client", volumes)
    yield manager, volumes
    manager.cleanup_host()


def _mapping(manager, volumes, volume_id="v1", connected=False) -> BlockDeviceMapping:
    bdm = BlockDeviceMapping(uuid=f"b-{volume_id}", instance_uuid=INSTANCE.uuid,
                             volume_id=volume_id, attachment_id=f"a-{volume_id}",
                             device_name="/dev/vdb",
                             connection_info={**CONNECTION, "serial": volume_id}
                             if connected else None)
    manager.conductor.bdms[bdm.uuid] = bdm
    volumes.attachments[bdm.attachment_id] = {"id": bdm.attachment_id,
                                              "status": "attached" if connected
                                              else "reserved"}
    return bdm


def test_attach_connects_plugs_saves_then_completes(manager):
    manager, volumes = manager
    bdm = _mapping(manager, volumes)
    manager.attach_volume(CTX, INSTANCE, bdm)
    assert volumes.calls == [("update", "a-v1", "/dev/vdb"), ("complete", "a-v1")]
    assert manager.conductor.bdms["b-v1"].connection_info == {**CONNECTION, "serial": "v1"}
    assert manager.driver.volumes[INSTANCE.uuid]["v1"]["serial"] == "v1"


def test_a_multiattach_volume_is_plugged_as_a_shared_disk(manager):
    manager, volumes = manager
    volumes.shared.add("v1")
    manager.attach_volume(CTX, INSTANCE, _mapping(manager, volumes))
    assert manager.driver.volumes[INSTANCE.uuid]["v1"]["multiattach"] is True
    assert manager.conductor.bdms["b-v1"].connection_info["multiattach"] is True


def test_a_driver_without_multiattach_refuses_such_a_volume(manager, monkeypatch):
    manager, volumes = manager
    volumes.shared.add("v1")
    monkeypatch.setattr(manager.driver, "capabilities", {})
    manager.attach_volume(CTX, INSTANCE, _mapping(manager, volumes))
    assert volumes.calls == [("delete", "a-v1")]  # never connected, reservation undone
    assert manager.conductor.bdms == {}
    fault = next(args for name, args in manager.conductor.calls
                 if name == "instance_fault_create")
    assert fault[3] == ("Volume v1 has 'multiattach' set, which is not supported for this "
                        "instance.")


def test_an_attach_that_fails_late_undoes_every_step(manager):
    manager, volumes = manager
    volumes.fail = "complete"
    manager.attach_volume(CTX, INSTANCE, _mapping(manager, volumes))
    assert [c[0] for c in volumes.calls] == ["update", "complete", "delete"]
    assert manager.conductor.bdms == {} and INSTANCE.uuid not in manager.driver.volumes
    fault = next(args for name, args in manager.conductor.calls
                 if name == "instance_fault_create")
    assert fault[3] == "complete failed"  # (ctx, instance, code, message, ...)


def test_an_attach_whose_mapping_went_meanwhile_does_nothing(manager):
    manager, volumes = manager
    bdm = _mapping(manager, volumes)
    manager.conductor.bdms.clear()
    manager.attach_volume(CTX, INSTANCE, bdm)
    assert volumes.calls == [] and INSTANCE.uuid not in manager.driver.volumes


def test_a_detach_the_guest_refuses_puts_the_volume_back_in_use(manager, monkeypatch):
    manager, volumes = manager
    bdm = _mapping(manager, volumes, connected=True)

    def refuses(*args):
        raise exception.DeviceDetachFailed(device="/dev/vdb", reason="held")

    monkeypatch.setattr(manager.driver, "detach_volume", refuses)
    manager.detach_volume(CTX, INSTANCE, bdm)
    assert volumes.calls == [("roll", "v1")]
    assert "b-v1" in manager.conductor.bdms


def test_a_restart_finishes_or_undoes_what_it_interrupted(manager):
    manager, volumes = manager
    interrupted = _mapping(manager, volumes, "v1")  # no connection saved
    manager.driver.attach_volume(CTX, {**CONNECTION, "serial": "v1"}, INSTANCE, "/dev/vdb")
    completing = _mapping(manager, volumes, "v2", connected=True)
    volumes.attachments["a-v2"]["status"] = "attaching"
    detaching = _mapping(manager, volumes, "v3", connected=True)
    volumes.statuses["v3"] = "detaching"
    dangling = _mapping(manager, volumes, "v4", connected=True)
    del volumes.attachments["a-v4"]
    whole = _mapping(manager, volumes, "v5", connected=True)
    volumes.attachments["a-orphan"] = {"id": "a-orphan", "status": "reserved"}

    manager._init_volumes(CTX, Instance(uuid="without-volumes"))
    assert volumes.calls == []  # no mapping, nothing to ask
    manager._init_volumes(CTX, INSTANCE)
    assert set(manager.conductor.bdms) == {completing.uuid, whole.uuid}
    assert volumes.attachments["a-v2"]["status"] == "attached"
    assert set(volumes.attachments) == {"a-v2", "a-v5"}
    assert "v1" not in manager.driver.volumes.get(INSTANCE.uuid, {})
    assert ("delete", "a-orphan") in volumes.calls
    assert {interrupted.uuid, detaching.uuid, dangling.uuid}.isdisjoint(
        manager.conductor.bdms)


def test_a_deleted_servers_volumes_are_detached_and_deleted_if_asked(manager):
    manager, volumes = manager
    _mapping(manager, volumes, "v1", connected=True)
    dropped = _mapping(manager, volumes, "v2", connected=True)
    dropped.delete_on_termination = True
    volumes.fail = "delete-volume"  # logged, never a failed server delete
    manager._cleanup_volumes(CTX, INSTANCE)
    assert ("delete", "a-v1") in volumes.calls and ("delete", "a-v2") in volumes.calls
    assert ("delete-volume", "v2") in volumes.calls
    assert ("delete-volume", "v1") not in volumes.calls
    assert manager.conductor.bdms == {}


def test_a_move_hands_each_volume_over_then_the_next_host_connects_it(manager):
    manager, volumes = manager
    _mapping(manager, volumes, "v1", connected=True)
    reserved = _mapping(manager, volumes, "v2")  # a failed move's: no host has it
    manager._terminate_volume_connections(CTX, INSTANCE)
    assert [call[0] for call in volumes.calls] == ["create", "delete"]
    handed = manager.conductor.bdms["b-v1"]
    assert (handed.connection_info, handed.attachment_id) == (None, "a-v1-1")
    assert set(volumes.attachments) == {"a-v1-1", reserved.attachment_id}

    volumes.calls.clear()
    devices = manager._connect_volumes(CTX, INSTANCE)
    assert [device.serial for device in devices] == ["v1", "v2"]
    assert [call[:2] for call in volumes.calls] == [
        ("update", "a-v1-1"), ("complete", "a-v1-1"), ("update", "a-v2"),
        ("complete", "a-v2")]
    assert all(b.connection_info for b in manager.conductor.bdms.values())


def test_a_volume_that_cannot_move_fails_the_step_unless_cleaning_up(manager):
    manager, volumes = manager
    _mapping(manager, volumes, "v1", connected=True)
    _mapping(manager, volumes, "v2", connected=True)
    volumes.fail = "create"
    with pytest.raises(cinder.CinderError):
        manager._terminate_volume_connections(CTX, INSTANCE)
    assert [call[:2] for call in volumes.calls] == [("create", "v1")]
    volumes.calls.clear()
    manager._terminate_volume_connections(CTX, INSTANCE, lenient=True)
    assert [call[:2] for call in volumes.calls] == [("create", "v1"), ("create", "v2")]
    assert all(b.connection_info for b in manager.conductor.bdms.values())  # both kept

    volumes.fail = "update"
    reserved = _mapping(manager, volumes, "v3")
    assert [d.serial for d in manager._connect_volumes(CTX, INSTANCE, lenient=True)] == [
        "v1", "v2"]
    assert manager.conductor.bdms[reserved.uuid].connection_info is None


@pytest.mark.parametrize("moving", [
    Instance(uuid="i-1", vm_state=states.ACTIVE, task_state=states.RESIZE_MIGRATED),
    Instance(uuid="i-1", vm_state=states.ERROR)])
def test_a_restart_leaves_a_volume_reserved_for_a_move(manager, moving):
    manager, volumes = manager
    reserved = _mapping(manager, volumes, "v1")
    manager._init_volumes(CTX, moving)
    assert manager.conductor.bdms == {reserved.uuid: reserved}
    assert set(volumes.attachments) == {reserved.attachment_id}
