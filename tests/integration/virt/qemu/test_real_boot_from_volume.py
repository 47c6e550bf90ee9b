"""Real QEMU guests (TCG) whose root disk is a volume (Nova's boot from volume), driven
through the qemu driver as the compute manager drives it: each volume a qcow2 file served
by qemu-nbd exactly as the volume service exports it (novalite.volume.exports), handed to
spawn as block_device_info.

The root volume holds an ext4 disk whose text differs from novalite-tiny's own: the
guest's init mounts /dev/vda and prints it, so the line proves the guest's first disk is
the volume (ahead of its config drive), at each launch. Its kernel and ramdisk come from
the image service as the image metadata of a volume made from novalite-tiny names them;
a second volume is attached from the start. A volume with only a boot sector boots by
the BIOS, with no image at all."""

from __future__ import annotations

import os
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from novalite import exception
from novalite.context import get_admin_context
from novalite.image import db as images
from novalite.objects import states
from novalite.objects.flavor import Flavor
from novalite.objects.instance import Instance
from novalite.virt.driver import VolumeDevice
from novalite.virt.qemu import guest_image
from novalite.virt.qemu.driver import QemuDriver
from novalite.volume.exports import Exports
from tests import services
from tests.integration.virt.qemu.test_real_guests import (
    BOOT_TIMEOUT,
    qemu_cloud,  # noqa: F401 (fixture)
)
from tests.waiting import wait_for

HOST = "bfv-host"
NANO = Flavor(flavorid="42", name="m1.nano", memory_mb=128, vcpus=1)
ROOT_TEXT = "hello-from-the-root-volume"
BIOS_TEXT = "NOVALITE-BIOS-BOOTED-FROM-THE-VOLUME"


def _boot_sector(text: str) -> bytes:
    """Real mode at 0x7c00: print `text` on the first serial port (the console log),
    then halt. xor ax,ax; mov ds,ax; cld; mov si,msg; mov dx,0x3f8; next: lodsb;
    test al,al; jz halt; out dx,al; jmp next; halt: hlt; jmp halt; msg: text, 0."""
    code = (b"\x31\xc0\x8e\xd8\xfc\xbe\x16\x7c\xba\xf8\x03\xac\x84\xc0\x74\x03\xee\xeb\xf8"
            b"\xf4\xeb\xfd" + text.encode() + b"\0")
    return code + bytes(510 - len(code)) + b"\x55\xaa"


class Volumes:
    """Volume files exported over NBD, as the volume service does for an attachment."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.exports = Exports(HOST)

    def qcow2(self, name: str, raw: Path | None = None, size: str = "16M") -> Path:
        """A volume file: `raw`'s content in the backend's format, else blank."""
        path = self.directory / f"{name}.qcow2"
        args = (["convert", "-q", "-f", "raw", "-O", "qcow2", str(raw), str(path)] if raw
                else ["create", "-q", "-f", "qcow2", str(path), size])
        subprocess.run(["qemu-img", *args], check=True, capture_output=True, timeout=30)
        return path

    def device(self, path: Path, **placement) -> VolumeDevice:
        """Exported, with the connection info the compute hands its driver."""
        volume_id = str(uuid.uuid4())
        export = self.exports.start(f"attachment-{volume_id}", str(path), volume_id,
                                    read_only=False)
        connection = {"driver_volume_type": "nbd", "serial": volume_id, "data": {
            "host": export.host, "port": export.port, "export": export.name,
            "name": volume_id, "volume_id": volume_id, "access_mode": "rw"}}
        return VolumeDevice(connection, placement.pop("mount_device", "/dev/vdb"),
                            **placement)

    def stop_all(self) -> None:
        for attachment_id in self.exports.known():
            self.exports.stop(attachment_id)


@pytest.fixture
def volumes(tmp_path) -> Iterator[Volumes]:
    found = Volumes(tmp_path)
    yield found
    found.stop_all()


@pytest.fixture
def qemu(conf, tmp_path) -> Iterator[QemuDriver]:
    """A qemu compute driver of its own, with its own instances directory."""
    services.require_qemu()
    conf.set_override("virt_type", "qemu", group="libvirt")
    driver = QemuDriver(instances_dir=str(tmp_path / "instances"))
    driver.init_host(HOST)
    yield driver
    for uuid_ in driver.list_instances():  # never leave a guest running
        driver.destroy(None, Instance(uuid=uuid_))
    driver.cleanup_host(HOST)


def _root_disk(directory: Path) -> Path:
    """An ext4 disk as novalite-tiny's, its hello.txt saying ROOT_TEXT."""
    mkfs = services.require_tool("mkfs.ext4", "e2fsprogs")
    content = directory / "root-content"
    content.mkdir()
    (content / "hello.txt").write_text(ROOT_TEXT + "\n")
    raw = directory / "root.raw"
    subprocess.run([mkfs, "-q", "-F", "-d", str(content), str(raw), "16M"], check=True,
                   capture_output=True, timeout=30)
    return raw


def _console(driver: QemuDriver, instance: Instance, text: str, count: int = 1) -> str:
    return wait_for(lambda: (out := driver.get_console_output(None, instance)).count(text)
                    >= count and out, timeout=BOOT_TIMEOUT, interval=0.1,
                    what=f"{count} x {text!r} on the console")


def _same(left: Path, right: Path) -> bool:
    """The two disks hold the same data (qemu-img compare, without taking their locks)."""
    return subprocess.run(["qemu-img", "compare", "-U", "-q", str(left), str(right)],
                          capture_output=True, timeout=60).returncode == 0


def test_a_guest_boots_from_its_root_volume_and_keeps_it(qemu_cloud, qemu,  # noqa: F811
                                                         volumes, tmp_path):
    root_file = volumes.qcow2("root", _root_disk(tmp_path))
    pristine = tmp_path / "pristine.qcow2"
    shutil.copy(root_file, pristine)
    root = volumes.device(root_file, mount_device="/dev/vda", boot_index=0,
                          disk_bus="virtio", device_type="disk")
    data = volumes.device(volumes.qcow2("data"))
    # a config drive too: a virtio disk on pcie.0 as well, which must come after the root
    instance = Instance(uuid=str(uuid.uuid4()), flavor=NANO, image_ref="", config_drive=True)
    # the image metadata of a volume made from novalite-tiny: its kernel, ramdisk and
    # command line (the image's own disk is never read)
    image_meta = images.image_get(images.DEFAULT_IMAGE_ID).to_meta()
    ctx = get_admin_context()

    qemu.spawn(ctx, instance, image_meta, block_device_info=[root, data])
    disk_line = f"{guest_image.DISK_MARKER} {ROOT_TEXT}"
    _console(qemu, instance, disk_line)
    _console(qemu, instance, guest_image.MARKER)
    directory = Path(qemu._guest(instance.uuid).paths.directory)
    assert not (directory / "disk").exists()
    # both volumes (and the config drive) are the guest's: its kernel has read each
    wait_for(lambda: sum(bool(d.read_bytes) for d in
                         qemu.get_instance_diagnostics(instance).disk_details) == 3,
             timeout=BOOT_TIMEOUT, what="three disks read")

    with pytest.raises(exception.InvalidVolume, match="is the root disk"):
        qemu.detach_volume(ctx, root.connection_info, instance, "/dev/vda")
    with pytest.raises(exception.NovaliteException, match="its snapshot is a snapshot"):
        qemu.snapshot(ctx, instance, "image-1", lambda *_: None)

    # relaunched, the guest has its root volume again: ACPI off and on, then its memory
    # saved and restored (the guest answers an NMI after it)
    qemu.power_off(instance, timeout=30, retry_interval=10)
    assert guest_image.POWEROFF_MARKER in qemu.get_console_output(ctx, instance)
    assert qemu.get_info(instance).state == states.SHUTDOWN
    qemu.power_on(ctx, instance)
    _console(qemu, instance, disk_line, 2)
    _console(qemu, instance, guest_image.MARKER, 2)
    qemu.suspend(ctx, instance)
    assert qemu.get_info(instance).state == states.POWER_SUSPENDED
    qemu.resume(ctx, instance)
    assert qemu.get_info(instance).state == states.RUNNING
    qemu.trigger_crash_dump(instance)
    _console(qemu, instance, "NMI received")

    qemu.destroy(ctx, instance)
    assert not directory.exists() and qemu.list_instances() == []
    assert root_file.exists() and _same(root_file, pristine)  # read-only mount: unchanged


def test_a_volume_with_a_boot_sector_boots_by_the_bios(qemu, volumes, tmp_path):
    sector = tmp_path / "sector.raw"
    sector.write_bytes(_boot_sector(BIOS_TEXT).ljust(1024 * 1024, b"\0"))
    root = volumes.device(volumes.qcow2("bios", sector), mount_device="/dev/vda",
                          boot_index=0)
    instance = Instance(uuid=str(uuid.uuid4()), flavor=NANO, image_ref="")
    qemu.spawn(None, instance, None, block_device_info=[root])
    _console(qemu, instance, BIOS_TEXT)
    qemu.destroy(None, instance)

    blank = volumes.device(volumes.qcow2("blank"), mount_device="/dev/vda", boot_index=0)
    with pytest.raises(exception.BuildAbortException, match="has no boot sector"):
        qemu.spawn(None, Instance(uuid=str(uuid.uuid4()), flavor=NANO, image_ref=""), None,
                   block_device_info=[blank])
    assert qemu.list_instances() == [] and not os.listdir(qemu._root())
