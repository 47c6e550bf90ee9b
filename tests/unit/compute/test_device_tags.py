"""The guest's tagged devices as the compute keeps them (DeviceTagSteps in the manager),
with the fake driver and a conductor that records what it is told."""

import pytest

from novalite.compute.manager import ComputeManager
from novalite.context import get_admin_context
from novalite.objects.block_device import BlockDeviceMapping
from novalite.objects.instance import Instance
from novalite.objects.network_info import VIF, Network

CTX = get_admin_context()


def _vif(mac: str, tag: str | None) -> VIF:
    return VIF(id=f"port-{mac}", address=mac, tag=tag,
               network=Network(id="n", label="n", bridge="b"))


class Conductor:
    def __init__(self):
        self.bdms = [BlockDeviceMapping(uuid="b1", instance_uuid="i-1", volume_id="v1",
                                        tag="db"),
                     BlockDeviceMapping(uuid="b2", instance_uuid="i-1", volume_id="v2")]
        self.updates = []

    def block_device_mapping_get_all_by_instance(self, ctx, instance_uuid):
        return self.bdms

    def instance_update(self, ctx, instance_uuid, values, **kwargs):
        self.updates.append((instance_uuid, values, kwargs))


@pytest.fixture
def manager(conf):
    manager = ComputeManager("h1")
    manager.driver.init_host("h1")
    manager.conductor = Conductor()
    yield manager
    manager.cleanup_host()


INSTANCE = Instance(uuid="i-1", network_info=[_vif("m1", None), _vif("m2", "data")])


def test_the_tagged_nics_and_volumes_are_saved_whatever_the_task_state(manager):
    manager.driver.spawn(CTX, INSTANCE, None)
    for serial in ("v1", "v2"):
        manager.driver.attach_volume(CTX, {"serial": serial}, INSTANCE, None)
    manager.refresh_device_metadata(CTX, INSTANCE)
    ((uuid, values, kwargs),) = manager.conductor.updates
    assert uuid == "i-1" and kwargs == {"check_task_state": False}
    assert values["device_metadata"] == [
        {"type": "nic", "bus": "pci", "address": "0000:00:02.0", "mac": "m2",
         "serial": None, "tags": ["data"]},
        {"type": "disk", "bus": "pci", "address": "0000:01:00.0", "mac": None,
         "serial": "v1", "tags": ["db"]}]


def test_a_guest_the_driver_does_not_know_keeps_its_list(manager, caplog):
    manager.refresh_device_metadata(CTX, INSTANCE)
    assert manager.conductor.updates == []
    assert "Could not read the devices of instance i-1" in caplog.text
