"""Volumes of QEMU guests: their command line, the driver keeping them in a stopped
guest's configuration, and the detach's wait for DEVICE_DELETED (a fake monitor)."""

import json

import pytest

from novalite import exception
from novalite.objects.instance import Instance
from novalite.virt.qemu import config, volumes
from novalite.virt.qemu.driver import QemuDriver
from novalite.virt.qemu.guest import Guest
from tests.unit.virt.qemu.test_qmp import FakeMonitor

VOLUME_ID = "0b7e4c1a-2f3d-4e5f-8a9b-0c1d2e3f4a5b"
CONNECTION = {"driver_volume_type": "nbd", "serial": VOLUME_ID, "data": {
    "host": "192.0.2.7", "port": 10809, "export": VOLUME_ID, "access_mode": "rw"}}


def test_the_command_line_has_the_ports_and_each_volume_on_its_own():
    volume = volumes.Volume.of(CONNECTION, 1)
    argv = volumes.command_line(2, [{**vars(volume)}])
    assert argv[:4] == ["-device", "pcie-root-port,id=volport0,bus=pcie.0,chassis=1,addr=0x10",
                        "-device", "pcie-root-port,id=volport1,bus=pcie.0,chassis=2,addr=0x11"]
    blockdev = json.loads(argv[argv.index("-blockdev") + 1])
    assert blockdev == {"driver": "nbd", "node-name": "n0b7e4c1a2f3d4e5f8a9b0c1d2e3f4a",
                        "server": {"type": "inet", "host": "192.0.2.7", "port": "10809"},
                        "export": VOLUME_ID, "read-only": False, "reconnect-delay": 30,
                        "cache": {"direct": True, "no-flush": False}}  # cache='none'
    assert argv[-1] == (f"virtio-blk-pci,drive={blockdev['node-name']},"
                        f"id=d0b7e4c1a2f3d4e5f8a9b0c1d2e3f4a,serial={VOLUME_ID},bus=volport1")


def test_a_multiattach_volume_is_a_shareable_disk_as_libvirt_makes_it():
    volume = volumes.Volume.of({**CONNECTION, "multiattach": True}, 0)
    argv = volumes.command_line(1, [{**vars(volume)}])
    assert argv[-1].endswith(",bus=volport0,share-rw=on,write-cache=on")
    assert not volumes.Volume(**{k: v for k, v in vars(volume).items()
                                 if k != "shareable"}).shareable  # kept before: not shared


def test_only_nbd_exports_and_free_ports_are_taken():
    with pytest.raises(exception.NovaliteException, match="over NBD, not iscsi"):
        volumes.Volume.of({**CONNECTION, "driver_volume_type": "iscsi"}, 0)
    assert volumes.Volume.of({**CONNECTION, "data": {**CONNECTION["data"],
                                                     "access_mode": "ro"}}, 0).read_only
    assert volumes.free_port(3, [{"port": 0}, {"port": 2}]) == 1
    with pytest.raises(exception.NovaliteException, match="no free PCIe port"):
        volumes.free_port(1, [{"port": 0}])


def stopped_guest_in(tmp_path, **guest) -> tuple[QemuDriver, Instance, str]:
    """A guest directory the driver knows, its QEMU not running; `guest`: its
    GuestConfig's fields beyond the machine's."""
    driver = QemuDriver(instances_dir=str(tmp_path))
    instance = Instance(uuid="5e0d1c9a-1111-4222-8333-444455556666")
    directory = tmp_path / instance.uuid
    directory.mkdir()
    config.GuestConfig(uuid=instance.uuid, memory_mb=128, vcpus=1, accel="tcg",
                       machine="q35", cpu_model="qemu64", **guest
                       ).save(str(directory / "guest.json"))
    return driver, instance, str(directory / "guest.json")


@pytest.fixture
def stopped_guest(conf, tmp_path):
    return stopped_guest_in(tmp_path, pcie_ports=1)


def test_a_stopped_guest_keeps_its_volumes_for_its_next_launch(stopped_guest):
    driver, instance, path = stopped_guest
    driver.attach_volume(None, CONNECTION, instance, "/dev/vdb")
    driver.attach_volume(None, CONNECTION, instance, "/dev/vdb")  # a retry: no change
    (kept,) = config.GuestConfig.load(path).volumes
    assert (kept["serial"], kept["port"], kept["nbd_port"]) == (VOLUME_ID, 0, 10809)
    argv = config.command("qemu", config.GuestConfig.load(path), config.GuestPaths("/d"))
    assert f"serial={VOLUME_ID}" in argv[-1]
    other = {**CONNECTION, "serial": "1" * 8 + VOLUME_ID[8:]}
    with pytest.raises(exception.NovaliteException, match="no free PCIe port"):
        driver.attach_volume(None, other, instance, "/dev/vdc")
    with pytest.raises(exception.NovaliteException, match="not as lun on scsi"):
        driver.attach_volume(None, other, instance, "/dev/vdc", "scsi", "lun")
    driver.detach_volume(None, {"serial": VOLUME_ID}, instance, "/dev/vdb")
    driver.detach_volume(None, {"serial": VOLUME_ID}, instance, "/dev/vdb")  # idempotent
    assert config.GuestConfig.load(path).volumes == []


def _deleted(path: str | None) -> dict:
    data = {"path": path or "/machine/peripheral/x/virtio-backend"}
    if path:
        data["device"] = path.rsplit("/", 1)[-1]
    return {"event": "DEVICE_DELETED", "data": data}


def test_unplug_waits_for_its_devices_deleted_event(tmp_path):
    device = volumes.device_id(VOLUME_ID)
    monitor = FakeMonitor(str(tmp_path / "qmp.sock"), {}, events_before={
        "device_del": [_deleted(None), _deleted(f"/machine/peripheral/{device}")]})
    volumes.unplug(Guest("g", str(tmp_path)), VOLUME_ID, timeout=5)
    assert [m["execute"] for m in monitor.received][1:] == ["device_del", "blockdev-del"]
    assert monitor.received[2]["arguments"] == {"node-name": volumes.node_name(VOLUME_ID)}
    monitor.close()


def test_a_guest_that_keeps_the_device_fails_the_detach(tmp_path):
    monitor = FakeMonitor(str(tmp_path / "qmp.sock"), {},
                          events_before={"device_del": [_deleted(None)]})
    with pytest.raises(exception.DeviceDetachFailed) as failed:
        volumes.unplug(Guest("g", str(tmp_path)), VOLUME_ID, timeout=0.2)
    assert failed.value.format_message() == (
        f"Device detach failed for {volumes.device_id(VOLUME_ID)}: the guest did not "
        "release it within 0.2s")
    assert "blockdev-del" not in [m["execute"] for m in monitor.received]
    monitor.close()


def test_a_device_never_plugged_is_already_unplugged(tmp_path):
    monitor = FakeMonitor(str(tmp_path / "qmp.sock"), {
        "device_del": {"error": {"class": "DeviceNotFound", "desc": "Device 'd' not found"}},
        "blockdev-del": {"error": {"class": "GenericError",
                                   "desc": "Failed to find node with node-name='n'"}}})
    volumes.unplug(Guest("g", str(tmp_path)), VOLUME_ID, timeout=5)
    monitor.close()


class _Monitor:
    def __init__(self, failing: str) -> None:
        self.failing, self.calls = failing, []

    def qmp(self, command, **arguments):
        self.calls.append(command)
        if command == self.failing:
            raise volumes.QMPError(f"{command}: GenericError: no")


def test_a_plug_that_fails_leaves_no_node_behind():
    guest = _Monitor("device_add")
    with pytest.raises(volumes.QMPError):
        volumes.plug(guest, volumes.Volume.of(CONNECTION, 0))
    assert guest.calls == ["blockdev-add", "device_add", "blockdev-del"]


def test_a_root_volume_is_on_pcie0_first_to_boot():
    device = volumes.Volume.of(CONNECTION, None).device_args()
    assert "bus" not in device and device["bootindex"] == 1 and device["addr"] == "0x1"


def test_qemu_img_reads_a_volume_through_a_connection_of_its_own():
    filename = volumes.Volume.of(CONNECTION, None).probe_filename()
    assert filename.startswith("json:")
    assert json.loads(filename[len("json:"):]) == {"file": {
        "driver": "nbd", "server": {"type": "inet", "host": "192.0.2.7", "port": "10809"},
        "export": VOLUME_ID, "reconnect-delay": 30}}
