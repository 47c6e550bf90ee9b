import os
import threading

import pytest

from novalite import exception
from novalite.objects import states
from novalite.objects.flavor import Flavor
from novalite.objects.image import ImageMeta
from novalite.objects.instance import Instance
from novalite.objects.network_info import VIF, Network
from novalite.virt.driver import VolumeDevice
from novalite.virt.qemu import accel, config, driver
from tests.unit.virt.qemu.qga_agent import Agent


def test_missing_qemu_refuses_to_start_and_names_the_package(conf):
    conf.set_override("emulator", "/nonexistent/qemu-system-x86_64", group="qemu")
    with pytest.raises(driver.HypervisorUnavailable) as caught:
        driver.QemuDriver().init_host("host1")
    message = caught.value.format_message()
    assert "/nonexistent/qemu-system-x86_64" in message
    assert "apt-get install qemu-system-x86 qemu-utils" in message


def test_qemu_version_in_novas_integer_form(tmp_path):
    fake = tmp_path / "qemu-fake"
    fake.write_text("#!/bin/sh\necho 'QEMU emulator version 7.2.22 (Debian 1:7.2+dfsg-7)'\n")
    fake.chmod(0o755)
    assert driver._qemu_version(str(fake)) == 7002022


def test_host_memory_comes_from_meminfo():
    with open("/proc/meminfo") as meminfo:
        total_kb = int(meminfo.readline().split()[1])
    assert driver._host_memory_mb() == total_kb // 1024


@pytest.mark.parametrize("virt_type, expected", [("qemu", "tcg"), ("kvm", "kvm")])
def test_forced_virt_type_needs_no_probe(monkeypatch, virt_type, expected):
    monkeypatch.setattr(accel, "probe", lambda *a: pytest.fail("probed"))
    assert accel.choose("qemu", virt_type, 1.0) == expected


def test_auto_uses_tcg_when_the_kvm_probe_fails(monkeypatch):
    monkeypatch.setattr(accel.os, "access", lambda path, mode: True)
    monkeypatch.setattr(accel, "probe", lambda *a: "QEMU exited with -6: failed to set MSR")
    assert accel.choose("qemu", "auto", 1.0) == "tcg"


def test_auto_uses_kvm_when_a_guest_runs_under_it(monkeypatch):
    monkeypatch.setattr(accel.os, "access", lambda path, mode: True)
    monkeypatch.setattr(accel, "probe", lambda *a: None)
    assert accel.choose("qemu", "auto", 1.0) == "kvm"


def test_auto_without_usable_dev_kvm_does_not_probe(monkeypatch):
    monkeypatch.setattr(accel.os, "access", lambda path, mode: False)
    monkeypatch.setattr(accel, "probe", lambda *a: pytest.fail("probed"))
    assert accel.choose("qemu", "auto", 1.0) == "tcg"


def test_probe_sector_is_a_boot_sector():
    assert len(accel.PROBE_SECTOR) == 512 and accel.PROBE_SECTOR.endswith(b"\x55\xaa")


def test_host_uptime_is_the_uptime_commands_line():
    assert " up " in driver.QemuDriver().get_host_uptime()


# --- volume-backed guests (boot from volume) -------------------------------------------

ROOT_ID = "0b7e4c1a-2f3d-4e5f-8a9b-0c1d2e3f4a5b"
DATA_ID = "1c8f5d2b-3a4e-4f6a-9b0c-1d2e3f4a5b6c"
NANO = Flavor(flavorid="42", name="m1.nano", memory_mb=128, vcpus=1)
BOOT = {"kernel_id": "k1", "ramdisk_id": "r1", "os_command_line": "quiet"}


def _connection(volume_id: str, kind: str = "nbd") -> dict:
    return {"driver_volume_type": kind, "serial": volume_id, "data": {
        "host": "192.0.2.7", "port": 10809, "export": volume_id, "access_mode": "rw"}}


def _root(volume_id: str = ROOT_ID, **device) -> VolumeDevice:
    return VolumeDevice(_connection(volume_id), "/dev/vda", boot_index=0, **device)


@pytest.fixture
def qemu(conf, tmp_path, monkeypatch):
    """A driver whose image service has only kernels and ramdisks: a volume-backed guest
    must never read its image's disk."""
    def show(ctx, image_id):
        assert image_id in ("k1", "r1"), f"the image {image_id} was read"
        return {"id": image_id}

    monkeypatch.setattr(driver.glance, "show", show)
    monkeypatch.setattr(driver.images, "fetch", lambda ctx, image: f"/base/{image['id']}")
    return driver.QemuDriver(instances_dir=str(tmp_path))


def _saved(qemu: driver.QemuDriver, instance: Instance) -> config.GuestConfig:
    return config.GuestConfig.load(qemu._guest(instance.uuid).paths.config)


def test_a_volume_backed_guest_has_its_root_volume_and_no_disk_file(qemu):
    instance = Instance(uuid="5e0d1c9a-1111-4222-8333-444455556666", flavor=NANO)
    data = VolumeDevice(_connection(DATA_ID), "/dev/vdb")
    qemu.spawn(None, instance, ImageMeta(id="made-from", properties=BOOT), power_on=False,
               block_device_info=[data, _root(disk_bus="virtio", device_type="disk")])
    saved = _saved(qemu, instance)
    assert (saved.root_volume["serial"], saved.root_volume["port"]) == (ROOT_ID, None)
    assert [(kept["serial"], kept["port"]) for kept in saved.volumes] == [(DATA_ID, 0)]
    assert (saved.kernel, saved.ramdisk, saved.kernel_args) == ("/base/k1", "/base/r1", "quiet")
    assert not os.path.exists(qemu._guest(instance.uuid).paths.disk)
    assert qemu.list_instances() == [instance.uuid]
    assert qemu.get_info(instance).state == states.SHUTDOWN
    # asked again, or for the root, attach changes nothing
    qemu.attach_volume(None, _connection(ROOT_ID), instance, "/dev/vdc")
    assert _saved(qemu, instance).volumes == saved.volumes


def test_without_a_kernel_the_volume_must_have_a_boot_sector(qemu, monkeypatch):
    read = []
    monkeypatch.setattr(driver.disk, "is_bootable",
                        lambda filename, fmt: read.append((filename, fmt)) or False)
    instance = Instance(uuid="5e0d1c9a-1111-4222-8333-444455556666", flavor=NANO)
    with pytest.raises(exception.BuildAbortException, match=f"volume {ROOT_ID} is not "
                                                            "bootable"):
        qemu.spawn(None, instance, None, block_device_info=[_root()])
    ((filename, fmt),) = read
    assert filename.startswith("json:") and '"driver": "nbd"' in filename and fmt == "raw"
    assert qemu.list_instances() == [] and not os.listdir(qemu._root())

    monkeypatch.setattr(driver.disk, "is_bootable", lambda filename, fmt: True)
    qemu.spawn(None, instance, ImageMeta(id="made-from"), power_on=False,
               block_device_info=[_root()])
    assert _saved(qemu, instance).kernel is None


@pytest.mark.parametrize("devices, reason", [
    ([_root(disk_bus="scsi")], "not as disk on scsi"),
    ([_root(), VolumeDevice(_connection(DATA_ID, "iscsi"), "/dev/vdb")], "over NBD, not iscsi"),
    ([_root(), VolumeDevice(_connection(DATA_ID), "/dev/vdb"),
      VolumeDevice(_connection("2" * 8 + DATA_ID[8:]), "/dev/vdc")], "no free PCIe port"),
])
def test_volumes_no_host_could_take_abort_the_build(qemu, conf, devices, reason):
    conf.set_override("num_pcie_ports", 1, group="libvirt")
    instance = Instance(uuid="5e0d1c9a-1111-4222-8333-444455556666", flavor=NANO)
    with pytest.raises(exception.BuildAbortException, match=reason):
        qemu.spawn(None, instance, ImageMeta(id="made-from", properties=BOOT),
                   block_device_info=devices)
    assert not os.listdir(qemu._root())


@pytest.fixture
def volume_backed(qemu):
    instance = Instance(uuid="5e0d1c9a-1111-4222-8333-444455556666", flavor=NANO,
                        image_ref="")
    qemu.spawn(None, instance, ImageMeta(id="made-from", properties=BOOT), power_on=False,
               block_device_info=[_root()])
    return qemu, instance


def test_what_would_copy_or_move_its_disk_refuses_a_volume_backed_guest(volume_backed):
    qemu, instance = volume_backed
    with pytest.raises(exception.NovaliteException, match=f"boots from volume {ROOT_ID}: "
                                                          "its snapshot is a snapshot"):
        qemu.snapshot(None, instance, "image-1", lambda *_: pytest.fail("snapshotting"))
    with pytest.raises(exception.InstanceNotRescuable, match=f"from volume {ROOT_ID}"):
        qemu.rescue(None, instance, ImageMeta(id="rescue"), None)
    with pytest.raises(exception.InvalidVolume, match=f"volume {ROOT_ID} is the root disk"):
        qemu.detach_volume(None, _connection(ROOT_ID), instance, "/dev/vda")
    assert _saved(qemu, instance).root_volume["serial"] == ROOT_ID  # all as it was


def test_assisted_volume_snapshots_are_refused_for_nbd_disks(volume_backed):
    """Nova's libvirt driver snapshots a volume's file or netfs share, never another
    network disk: the guest's volumes here are NBD exports, left as they were."""
    qemu, instance = volume_backed
    qemu.attach_volume(None, _connection(DATA_ID), instance, "/dev/vdb")
    before = _saved(qemu, instance)
    info = {"snapshot_id": "s", "type": "qcow2", "new_file": "new.qcow2"}
    for volume_id in (DATA_ID, ROOT_ID):
        with pytest.raises(exception.VolumeSnapshotNotSupported, match="nbd network disk"):
            qemu.volume_snapshot_create(None, instance, volume_id, info)
        with pytest.raises(exception.VolumeSnapshotNotSupported, match=volume_id):
            qemu.volume_snapshot_delete(None, instance, volume_id, "s",
                                        {"volume_id": volume_id, "type": "qcow2",
                                         "file_to_merge": None, "merge_target_file": None})
    with pytest.raises(exception.NovaliteException, match="Found no disk to snapshot."):
        qemu.volume_snapshot_create(None, instance, "not-attached", info)
    assert _saved(qemu, instance) == before


def _moved(connection: dict, port: int) -> dict:
    return {**connection, "data": {**connection["data"], "port": port}}


def test_a_volume_backed_guest_migrates_on_its_volumes_connected_anew(volume_backed,
                                                                      tmp_path):
    qemu, instance = volume_backed
    qemu.attach_volume(None, _connection(DATA_ID), instance, "/dev/vdb")
    disk_info = qemu.migrate_disk_and_power_off(None, instance, "host2", NANO)
    assert qemu.list_instances() == []
    dest = driver.QemuDriver(instances_dir=str(tmp_path / "dest"))
    root, data = _moved(_connection(ROOT_ID), 20001), _moved(_connection(DATA_ID), 20002)
    dest.finish_migration(None, None, instance, disk_info, None, False,
                          [VolumeDevice(data, "/dev/vdb"),
                           VolumeDevice(root, "/dev/vda", boot_index=0)], power_on=False)
    landed = _saved(dest, instance)
    assert (landed.root_volume["nbd_port"], landed.volumes[0]["nbd_port"]) == (20001, 20002)
    assert (landed.kernel, landed.ramdisk, landed.kernel_args) == ("/base/k1", "/base/r1",
                                                                   "quiet")
    assert not os.path.exists(dest._guest(instance.uuid).paths.disk)

    dest.destroy(None, instance)
    back = _moved(_connection(DATA_ID), 20003)
    qemu.finish_revert_migration(None, instance,
                                 [VolumeDevice(_moved(_connection(ROOT_ID), 20004),
                                               "/dev/vda", boot_index=0),
                                  VolumeDevice(back, "/dev/vdb")], power_on=False)
    reverted = _saved(qemu, instance)
    assert reverted.root_volume["nbd_port"] == 20004
    assert [(v["serial"], v["port"], v["nbd_port"]) for v in reverted.volumes] == [
        (DATA_ID, 0, 20003)]


OTHER_ID = "2d9a6e3c-4b5f-4a7b-8c1d-2e3f4a5b6c7d"


@pytest.fixture
def destination(tmp_path, monkeypatch):
    """A live migration's destination whose QEMU is not started: `received` has
    whether it was to receive a disk."""
    dest = driver.QemuDriver(instances_dir=str(tmp_path / "dest"))
    received: list[bool] = []

    def receive(guest, emulator, disk):
        received.append(disk)
        return {"uri": "tcp:192.0.2.9:1"}

    monkeypatch.setattr(driver.migrating, "receive", receive)
    return dest, received


def test_a_live_migrations_incoming_guest_is_the_sources_machine(volume_backed, conf,
                                                                 destination):
    """Same root ports (whatever the destination's option), each volume on the port
    the source has it on (here not the first free one), connected as here; nothing of a
    volume-backed guest is mirrored."""
    qemu, instance = volume_backed
    qemu.attach_volume(None, _connection(DATA_ID), instance, "/dev/vdb")
    qemu.attach_volume(None, _connection(OTHER_ID), instance, "/dev/vdc")
    qemu.detach_volume(None, _connection(DATA_ID), instance, "/dev/vdb")
    layout = qemu.check_can_live_migrate_source(None, instance)
    conf.set_override("num_pcie_ports", 3, group="libvirt")
    dest, received = destination
    other = VolumeDevice(_moved(_connection(OTHER_ID), 20002), "/dev/vdc")
    root = VolumeDevice(_moved(_connection(ROOT_ID), 20001), "/dev/vda", boot_index=0)
    assert dest.pre_live_migration(None, instance, [other, root], layout) == {
        "uri": "tcp:192.0.2.9:1"}
    assert received == [False]
    source, incoming = _saved(qemu, instance), _saved(dest, instance)
    assert incoming.pcie_ports == source.pcie_ports != 3
    assert [(v["serial"], v["port"], v["nbd_port"]) for v in incoming.volumes] == [
        (OTHER_ID, 1, 20002)]
    assert (incoming.root_volume["serial"], incoming.root_volume["nbd_port"]) == (ROOT_ID,
                                                                                 20001)
    assert (incoming.kernel, incoming.ramdisk, incoming.kernel_args) == (
        "/base/k1", "/base/r1", "quiet")
    argv = config.command("qemu", incoming, dest._guest(instance.uuid).paths, "defer")
    assert f"serial={OTHER_ID},bus=volport1" in " ".join(argv)
    assert argv[argv.index("-incoming") + 1] == "defer"

    dest.rollback_live_migration_at_destination(None, instance)
    assert dest.list_instances() == [] and qemu.list_instances() == [instance.uuid]


def test_a_guest_with_volumes_needs_the_sources_layout(volume_backed, destination):
    """A source older than RPC 1.25 says nothing of its guest's ports: refused, with
    nothing prepared."""
    qemu, instance = volume_backed
    dest, received = destination
    with pytest.raises(exception.MigrationPreCheckError, match="which PCIe port"):
        dest.pre_live_migration(None, instance, [_root()], {})
    assert received == [] and dest.list_instances() == []


def test_destroying_a_volume_backed_guest_removes_only_its_directory(volume_backed):
    qemu, instance = volume_backed
    qemu.destroy(None, instance)
    assert qemu.list_instances() == [] and not os.listdir(qemu._root())
    with pytest.raises(exception.InstanceNotFound):
        qemu.get_info(instance)


# --- NICs on root ports ----------------------------------------------------------------

PORT_TAIL = "-1111-4222-8333-444455556666"


def _vif(index: int) -> VIF:
    return VIF(id=f"{index}" * 8 + PORT_TAIL, address=f"fa:16:3e:00:00:0{index}",
               network=Network(id="n", label="n", bridge="b", segmentation_id=7))


@pytest.fixture
def with_nics(qemu, conf, monkeypatch):
    """A volume-backed guest made with two NICs and a data volume, 2 spare ports; its
    taps are never plugged."""
    monkeypatch.setattr(driver.QemuDriver, "_plug", lambda self, guest, bound_here=True: None)
    conf.set_override("num_pcie_ports", 2, group="libvirt")
    instance = Instance(uuid="5e0d1c9a-1111-4222-8333-444455556666", flavor=NANO,
                        image_ref="", network_info=[_vif(1), _vif(2)])
    qemu.spawn(None, instance, ImageMeta(id="made-from", properties=BOOT), power_on=False,
               block_device_info=[_root(), VolumeDevice(_connection(DATA_ID), "/dev/vdb")])
    return qemu, instance


def _moved_devices() -> list[VolumeDevice]:
    return [VolumeDevice(_moved(_connection(DATA_ID), 20002), "/dev/vdb"),
            VolumeDevice(_moved(_connection(ROOT_ID), 20001), "/dev/vda", boot_index=0)]


def test_each_nic_a_guest_is_made_with_has_a_root_port_of_its_own(with_nics):
    """So that any of them can leave the running guest: the first ports, in the
    server's order, then the spare ones (the volume takes the first of those)."""
    qemu, instance = with_nics
    saved = _saved(qemu, instance)
    assert [nic["port"] for nic in saved.nics] == [0, 1]
    assert [(kept["serial"], kept["port"]) for kept in saved.volumes] == [(DATA_ID, 2)]
    assert saved.pcie_ports == 4
    argv = " ".join(config.command("qemu", saved, qemu._guest(instance.uuid).paths,
                                   tap_fds=[5, 6]))
    assert "mac=fa:16:3e:00:00:01,id=nic11111111" in argv and "bus=volport0" in argv
    assert {d.mac: d.address for d in qemu.guest_devices(instance) if d.mac} == {
        "fa:16:3e:00:00:01": "0000:01:00.0", "fa:16:3e:00:00:02": "0000:02:00.0"}


def test_a_live_migrations_incoming_guest_has_each_nic_where_the_source_has_it(
        with_nics, conf, destination):
    """Whatever the destination's option; a guest made before NICs had ports (its
    NICs on the root bus) arrives with them there too."""
    qemu, instance = with_nics
    dest, _ = destination
    source = _saved(qemu, instance)
    conf.set_override("num_pcie_ports", 5, group="libvirt")
    dest.pre_live_migration(None, instance, _moved_devices(),
                            qemu.check_can_live_migrate_source(None, instance))
    incoming = _saved(dest, instance)
    assert [nic["port"] for nic in incoming.nics] == [0, 1]
    assert (incoming.pcie_ports, incoming.volumes[0]["port"]) == (source.pcie_ports, 2)
    dest.rollback_live_migration_at_destination(None, instance)

    for nic in source.nics:  # as a guest made before NICs had ports keeps them
        nic["port"] = None
    source.pcie_ports, source.volumes[0]["port"] = 2, 0
    source.save(qemu._guest(instance.uuid).paths.config)
    dest.pre_live_migration(None, instance, _moved_devices(),
                            qemu.check_can_live_migrate_source(None, instance))
    incoming = _saved(dest, instance)
    assert [nic["port"] for nic in incoming.nics] == [None, None]
    assert (incoming.pcie_ports, incoming.volumes[0]["port"]) == (2, 0)


# --- remote consoles -------------------------------------------------------------------

CHARDEV = {"frontend-open": True, "label": "console0"}


class RunningQemu:
    """The QEMU of a running guest, answering the console queries."""

    def __init__(self, vnc: dict, serial: str) -> None:
        self.answers = {"query-vnc": vnc, "query-chardev": [{**CHARDEV, "filename": serial}]}

    def install(self, monkeypatch) -> None:
        monkeypatch.setattr(driver.Guest, "alive", lambda guest: True)
        monkeypatch.setattr(driver.Guest, "qmp", lambda guest, command: self.answers[command])


def test_a_running_guests_consoles_are_where_its_qemu_listens(qemu, conf, monkeypatch):
    conf.set_override("server_proxyclient_address", "192.0.2.5", group="vnc")
    conf.set_override("proxyclient_address", "192.0.2.6", group="serial_console")
    RunningQemu({"enabled": True, "service": "5903", "host": "0.0.0.0"},
                "disconnected:tcp:192.0.2.6:10004,server=on").install(monkeypatch)
    instance = Instance(uuid="5e0d1c9a-1111-4222-8333-444455556666")
    vnc = qemu.get_vnc_console(None, instance)
    assert (vnc.host, vnc.port, vnc.internal_access_path) == ("192.0.2.5", 5903, None)
    serial = qemu.get_serial_console(None, instance)
    assert (serial.host, serial.port) == ("192.0.2.6", 10004)


def test_a_guest_launched_without_a_console_type_says_it_is_unavailable(qemu, monkeypatch):
    RunningQemu({"enabled": False}, "file").install(monkeypatch)
    instance = Instance(uuid="5e0d1c9a-1111-4222-8333-444455556666")
    with pytest.raises(exception.ConsoleTypeUnavailable, match="vnc"):
        qemu.get_vnc_console(None, instance)
    with pytest.raises(exception.ConsoleTypeUnavailable, match="serial"):
        qemu.get_serial_console(None, instance)


def test_a_guest_whose_qemu_does_not_run_has_no_console(qemu, monkeypatch):
    instance = Instance(uuid="5e0d1c9a-1111-4222-8333-444455556666", flavor=NANO)
    with pytest.raises(exception.ConsoleTypeUnavailable):  # not built (yet)
        qemu.get_vnc_console(None, instance)
    qemu.spawn(None, instance, ImageMeta(id="made-from", properties=BOOT), power_on=False,
               block_device_info=[_root()])
    with pytest.raises(exception.ConsoleTypeUnavailable):  # off
        qemu.get_serial_console(None, instance)

    def exits(guest, command):
        running.clear()
        raise driver.QMPError("QEMU closed the QMP connection")

    running = [True]
    monkeypatch.setattr(driver.Guest, "alive", lambda guest: bool(running))
    monkeypatch.setattr(driver.Guest, "qmp", exits)
    with pytest.raises(exception.ConsoleTypeUnavailable):  # gone while asked
        qemu.get_vnc_console(None, instance)


def test_a_password_needs_a_guest_made_with_an_agent(qemu, monkeypatch):
    instance = Instance(uuid="5e0d1c9a-1111-4222-8333-444455556666", flavor=NANO)
    qemu.spawn(None, instance, ImageMeta(id="made-from", properties=BOOT), power_on=False,
               block_device_info=[_root()])
    image = ImageMeta(id="i", properties={"hw_qemu_guest_agent": "yes"})  # said too late
    with pytest.raises(exception.InstanceNotRunning):
        qemu.set_admin_password(instance, image, "x")
    RunningQemu({"enabled": False}, "file").install(monkeypatch)
    with pytest.raises(exception.QemuGuestAgentNotEnabled):
        qemu.set_admin_password(instance, image, "x")


def test_a_guest_whose_image_runs_an_agent_takes_the_password_through_it(qemu, monkeypatch):
    instance = Instance(uuid="5e0d1c9a-1111-4222-8333-444455556666", flavor=NANO)
    image = ImageMeta(id="made-from", properties={**BOOT, "hw_qemu_guest_agent": "yes"})
    qemu.spawn(None, instance, image, power_on=False, block_device_info=[_root()])
    assert _saved(qemu, instance).guest_agent
    RunningQemu({"enabled": False}, "file").install(monkeypatch)
    agent = Agent(qemu._guest(instance.uuid).paths.guest_agent)
    qemu.set_admin_password(instance, image, "s3cret")
    agent.thread.join(timeout=5)
    assert agent.commands[-1]["arguments"]["username"] == "root"
    monkeypatch.setattr(driver.guest_agent, "SYNC_TIMEOUT", 0.2)
    os.unlink(qemu._guest(instance.uuid).paths.guest_agent)
    Agent(qemu._guest(instance.uuid).paths.guest_agent, silent=True)
    with pytest.raises(exception.AdminPasswordNotImplemented):  # no agent answers
        qemu.set_admin_password(instance, image, "s3cret")


def test_a_guest_that_ends_unasked_is_reported_with_its_last_words(qemu, monkeypatch,
                                                                    caplog):
    """A guest that panics ends its QEMU (-no-reboot) with exit code 0 and nothing in
    qemu.log: its console is where the operator learns why."""
    guest = qemu._guest("g1")
    os.makedirs(guest.paths.directory)
    with open(guest.paths.qemu_log, "w") as log:
        log.write("qemu-system-x86_64 -name g1\nVNC server running on 127.0.0.1:5900\n")
    with open(guest.paths.console, "w") as console:
        console.write("booted\n" * 100 + "Kernel panic - not syncing: Attempted to kill init!\n")
    events: list = []
    noticed = threading.Event()
    qemu.register_event_listener(lambda event: (events.append(event), noticed.set()))
    monkeypatch.setattr(driver, "WATCH_INTERVAL", 0.001)
    qemu._watch("g1")  # its QEMU has no pidfile: it does not run
    watcher = threading.Thread(target=qemu._watch_loop)
    watcher.start()
    try:
        assert noticed.wait(10)
    finally:
        qemu._stop.set()
        watcher.join()
    assert [(e.instance_uuid, e.transition) for e in events] == \
        [("g1", driver.driver.EVENT_LIFECYCLE_STOPPED)]
    warning = next(r.getMessage() for r in caplog.records if r.levelname == "WARNING")
    qemu_log, console = warning.split("; its console ends: ")
    assert qemu_log.endswith("VNC server running on 127.0.0.1:5900")
    assert console.endswith("booted\nKernel panic - not syncing: Attempted to kill init!")
