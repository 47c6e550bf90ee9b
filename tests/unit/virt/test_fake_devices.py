"""A simulated guest reports its devices where a qemu guest would have them."""

import pytest

from novalite import exception
from novalite.objects.instance import Instance
from novalite.objects.network_info import VIF, Network
from novalite.virt.driver import VolumeDevice
from novalite.virt.fake import FakeDriver


def _vif(mac: str) -> VIF:
    return VIF(id=mac, address=mac, network=Network(id="n", label="n", bridge="b"))


def _volume(serial: str, boot_index: int | None = None) -> VolumeDevice:
    return VolumeDevice(connection_info={"serial": serial}, mount_device="/dev/vdb",
                        boot_index=boot_index)


def _where(driver: FakeDriver, guest: Instance) -> list[tuple[str | None, str]]:
    return [(d.mac or d.serial, d.address) for d in driver.guest_devices(guest)]


def test_nics_and_volumes_from_the_start_and_attached_later(conf):
    driver = FakeDriver()
    guest = Instance(uuid="u-1", network_info=[_vif("m1")])
    with pytest.raises(exception.InstanceNotFound):
        driver.guest_devices(guest)
    driver.spawn(None, guest, None, block_device_info=[_volume("root", 0), _volume("v1")])
    assert _where(driver, guest) == [("root", "0000:00:01.0"), ("m1", "0000:00:02.0"),
                                     ("v1", "0000:01:00.0")]
    driver.attach_volume(None, {"serial": "v2"}, guest, "/dev/vdc")
    driver.detach_volume(None, {"serial": "v1"}, guest, "/dev/vdb")
    driver.attach_volume(None, {"serial": "v3"}, guest, "/dev/vdd")
    # a port freed by a detach is the next attach's, as a qemu guest's; the others stay
    assert _where(driver, guest)[2:] == [("v2", "0000:02:00.0"), ("v3", "0000:01:00.0")]


def test_the_ports_outlive_the_service(conf):
    conf.set_override("persist_guests", True, group="fake_driver")
    driver = FakeDriver()
    driver.init_host("h1")
    guest = Instance(uuid="u-1")
    driver.spawn(None, guest, None)
    driver.attach_volume(None, {"serial": "v1"}, guest, "/dev/vdb")
    driver.attach_volume(None, {"serial": "v2"}, guest, "/dev/vdc")
    driver.detach_volume(None, {"serial": "v1"}, guest, "/dev/vdb")
    again = FakeDriver()
    again.init_host("h1")
    assert _where(again, guest) == [("v2", "0000:02:00.0")]
