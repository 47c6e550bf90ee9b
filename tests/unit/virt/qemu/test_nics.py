"""NICs attached to QEMU guests: the QMP sequences of a hot-plug and a hot-unplug (a
fake monitor), their command line and device addresses once kept in guest.json, the
root-port pool they share with volumes, and a stopped guest's configuration."""

import os

import pytest

from novalite import exception
from novalite.objects.network_info import VIF, Network
from novalite.virt.qemu import config, nics
from novalite.virt.qemu.guest import Guest
from tests.unit.virt.qemu.test_qmp import FakeMonitor
from tests.unit.virt.qemu.test_volumes import stopped_guest_in

PORT_ID = "7c1e2d3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f"
NIC = {"port_id": PORT_ID, "mac": "fa:16:3e:00:00:02", "network_id": "n",
       "network_type": "vxlan", "segmentation_id": 7, "physical_network": None,
       "mtu": 1450, "port": 1}
DEVICE = nics.device_id(PORT_ID)
NETDEV = nics.netdev_id(PORT_ID)


def test_a_hot_plug_passes_the_tap_then_adds_backend_and_device_on_the_port(tmp_path):
    monitor = FakeMonitor(str(tmp_path / "qmp.sock"), {})
    read, write = os.pipe()
    try:
        nics.plug(Guest("g", str(tmp_path)), NIC, read)
    finally:
        os.close(read)
        os.close(write)
    assert [(m["execute"], m.get("arguments")) for m in monitor.received][1:] == [
        ("getfd", {"fdname": NETDEV}),
        ("netdev_add", {"type": "tap", "id": NETDEV, "fd": NETDEV}),
        ("device_add", {"driver": "virtio-net-pci", "netdev": NETDEV,
                        "mac": "fa:16:3e:00:00:02", "id": DEVICE, "bus": "volport1"})]
    monitor.close()


def test_a_refused_device_leaves_no_backend(tmp_path):
    monitor = FakeMonitor(str(tmp_path / "qmp.sock"), {"device_add": {"error": {
        "class": "GenericError", "desc": "Bus 'volport1' is full"}}})
    read, write = os.pipe()
    with pytest.raises(nics.QMPError, match="is full"):
        nics.plug(Guest("g", str(tmp_path)), NIC, read)
    os.close(read)
    os.close(write)
    assert [m["execute"] for m in monitor.received][-1] == "netdev_del"
    monitor.close()


def _deleted(device: str) -> dict:
    return {"event": "DEVICE_DELETED",
            "data": {"device": device, "path": f"/machine/peripheral/{device}"}}


def test_an_unplug_waits_for_the_device_then_removes_the_backend(tmp_path):
    monitor = FakeMonitor(str(tmp_path / "qmp.sock"), {},
                          events_before={"device_del": [_deleted(DEVICE)]})
    nics.unplug(Guest("g", str(tmp_path)), NIC, timeout=5)
    assert [(m["execute"], m.get("arguments")) for m in monitor.received][1:] == [
        ("device_del", {"id": DEVICE}), ("netdev_del", {"id": NETDEV})]
    monitor.close()


def test_a_guest_that_keeps_the_nic_fails_the_detach_and_keeps_its_backend(tmp_path):
    monitor = FakeMonitor(str(tmp_path / "qmp.sock"), {})
    with pytest.raises(exception.DeviceDetachFailed, match="did not release it within"):
        nics.unplug(Guest("g", str(tmp_path)), NIC, timeout=0.2)
    assert "netdev_del" not in [m["execute"] for m in monitor.received]
    monitor.close()


def test_a_nic_on_the_root_bus_does_not_leave_a_running_guest(tmp_path):
    with pytest.raises(exception.DeviceDetachFailed, match="root bus"):
        nics.unplug(Guest("g", str(tmp_path)), {**NIC, "port": None}, timeout=1)


def test_the_command_line_keeps_an_attached_nic_on_its_port_after_the_ports():
    kept = config.GuestConfig(uuid="u", memory_mb=64, vcpus=1, accel="tcg", machine="q35",
                              cpu_model="qemu64", pcie_ports=2,
                              nics=[{**NIC, "port_id": "p0", "mac": "m0", "port": None},
                                    NIC])
    argv = config.command("qemu", kept, config.GuestPaths("/d"), tap_fds=[5, 6])
    assert argv[argv.index("-device", argv.index("tap,id=net0,fd=5")) + 1] == (
        "virtio-net-pci,netdev=net0,mac=m0,addr=0x1")
    last_port = max(i for i, a in enumerate(argv) if a.startswith("pcie-root-port"))
    plugged = argv.index(f"tap,id={NETDEV},fd=6")
    assert plugged > last_port
    assert argv[plugged + 2] == (f"virtio-net-pci,netdev={NETDEV},mac=fa:16:3e:00:00:02,"
                                 f"id={DEVICE},bus=volport1")
    addresses = {d.mac: d.address for d in config.guest_devices(kept)}
    assert addresses == {"m0": "0000:00:01.0", "fa:16:3e:00:00:02": "0000:02:00.0"}


@pytest.fixture
def stopped_guest(conf, tmp_path):
    return stopped_guest_in(tmp_path, pcie_ports=2, volumes=[{"serial": "v", "port": 0}])


def test_a_stopped_guest_keeps_the_nic_on_a_port_its_volumes_leave_free(stopped_guest):
    driver, instance, path = stopped_guest
    vif = VIF(id=PORT_ID, address="fa:16:3e:00:00:02",
              network=Network(id="n", label="n", bridge="b", segmentation_id=7))
    driver.attach_interface(None, instance, None, vif)
    driver.attach_interface(None, instance, None, vif)  # a retry: no change
    (kept,) = config.GuestConfig.load(path).nics
    assert (kept["port_id"], kept["port"], kept["mac"]) == (PORT_ID, 1, vif.address)
    other = VIF(id="8" * 8 + PORT_ID[8:], address="fa:16:3e:00:00:03",
                network=vif.network)
    with pytest.raises(exception.NovaliteException, match="no free PCIe port"):
        driver.attach_interface(None, instance, None, other)
    driver.detach_interface(None, instance, vif)
    driver.detach_interface(None, instance, vif)  # idempotent
    assert config.GuestConfig.load(path).nics == []


def test_nics_a_guest_is_made_with_take_the_first_ports_while_slots_remain():
    made = [{"mac": f"m{index}"} for index in range(3)]
    assert nics.give_ports(made, 2) == 5
    assert [nic["port"] for nic in made] == [0, 1, 2]
    assert nics.give_ports(made, nics.volumes.MAX_PORTS - 1) == nics.volumes.MAX_PORTS
    assert [nic["port"] for nic in made] == [0, None, None]
