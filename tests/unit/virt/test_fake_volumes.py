"""A simulated guest's volumes: recorded with their connection, logged on a running
guest's console, kept across a compute restart, gone with the guest."""

import pytest

from novalite import exception
from novalite.objects.instance import Instance
from novalite.virt.fake import FakeDriver

GUEST = Instance(uuid="u-1")
CONNECTION = {"driver_volume_type": "nbd", "data": {"port": 1}, "serial": "v1"}


def _started(conf) -> FakeDriver:
    conf.set_override("persist_guests", True, group="fake_driver")
    driver = FakeDriver()
    driver.init_host("h1")
    return driver


def test_volumes_are_recorded_and_outlive_the_service(conf):
    driver = _started(conf)
    with pytest.raises(exception.InstanceNotFound):
        driver.attach_volume(None, CONNECTION, GUEST, "/dev/vdb")
    driver.spawn(None, GUEST, None)
    assert driver.get_volume_connector(GUEST)["host"] == "h1"
    driver.attach_volume(None, CONNECTION, GUEST, "/dev/vdb")
    assert "[/dev/vdb] disk v1 attached" in driver.get_console_output(None, GUEST)
    assert _started(conf).volumes == {GUEST.uuid: {"v1": CONNECTION}}

    driver.detach_volume(None, {"serial": "v1"}, GUEST, "/dev/vdb")
    driver.detach_volume(None, {"serial": "v1"}, GUEST, "/dev/vdb")  # not there: fine
    assert driver.volumes == {} and _started(conf).volumes == {}
    driver.attach_volume(None, CONNECTION, GUEST, "/dev/vdb")
    driver.destroy(None, GUEST)
    assert driver.volumes == {}
