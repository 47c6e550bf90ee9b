"""Publishing the default images: blank for the fake driver, bootable for qemu, and the
upgrade of a fake-driver cloud's novalite-tiny when it moves to qemu."""

from __future__ import annotations

import threading

import pytest

from novalite.image import db as images
from novalite.image import seed, store
from novalite.virt.qemu import guest_image

CMDLINE = "console=ttyS0 quiet panic=-1 no_timer_check"
BOOT = {"kernel_id": seed.KERNEL_ID, "ramdisk_id": seed.RAMDISK_ID,
        "os_command_line": CMDLINE}


@pytest.fixture
def files(tmp_path):
    """A stand-in for a built guest: small files with recognisable bytes."""
    built = guest_image.GuestImage(tmp_path, "linux-image-6-cloud-amd64")
    built.kernel.write_bytes(b"KERNEL" * 1000)
    built.ramdisk.write_bytes(b"INITRD")
    built.disk.write_bytes(b"QFI\xfb" + bytes(20) + (1 << 24).to_bytes(8, "big"))
    return seed.BootableFiles(built.kernel, built.ramdisk, built.disk, CMDLINE)


def _bytes(image_id: str) -> bytes:
    return b"".join(store.read(image_id))


def test_bootable_seed_publishes_kernel_ramdisk_and_tiny(db, files):
    assert seed.seed_bootable_image(files) is True
    kernel = images.image_get(seed.KERNEL_ID)
    ramdisk = images.image_get(seed.RAMDISK_ID)
    tiny = images.image_get(images.DEFAULT_IMAGE_ID)
    assert (kernel.name, kernel.disk_format, kernel.container_format) == (
        "novalite-tiny-kernel", "aki", "aki")
    assert (ramdisk.name, ramdisk.disk_format, ramdisk.container_format) == (
        "novalite-tiny-ramdisk", "ari", "ari")
    assert (tiny.name, tiny.disk_format, tiny.container_format) == (
        "novalite-tiny", "qcow2", "bare")
    assert all((i.status, i.visibility) == ("active", "public")
               for i in (kernel, ramdisk, tiny))
    assert tiny.properties == BOOT and tiny.virtual_size == 1 << 24
    assert _bytes(seed.KERNEL_ID) == files.kernel.read_bytes()
    assert _bytes(seed.RAMDISK_ID) == b"INITRD"


def test_bootable_seed_is_idempotent(db, files):
    assert seed.seed_bootable_image(files) is True
    assert seed.seed_bootable_image(files) is False


def test_a_fake_driver_tiny_gains_kernel_ramdisk_and_properties_but_keeps_its_bytes(
        db, files):
    assert seed.seed_default_image() is True  # fake driver: blank raw
    assert seed.seed_bootable_image(files) is True
    tiny = images.image_get(images.DEFAULT_IMAGE_ID)
    assert (tiny.disk_format, tiny.size) == ("raw", seed.TINY_SIZE)
    assert _bytes(images.DEFAULT_IMAGE_ID) == seed.tiny_image_bytes()
    assert tiny.properties == BOOT
    assert images.image_get(seed.KERNEL_ID).status == "active"
    assert seed.seed_bootable_image(files) is False


def test_upgrade_keeps_properties_an_operator_set(db, files):
    seed.seed_default_image()
    images.image_update(images.DEFAULT_IMAGE_ID,
                        {"properties": {"os_command_line": "console=ttyS0 debug", "x": "1"}})
    seed.seed_bootable_image(files)
    props = images.image_get(images.DEFAULT_IMAGE_ID).properties
    assert props == {**BOOT, "os_command_line": "console=ttyS0 debug", "x": "1"}


def test_concurrent_seeds_create_each_image_once(db, files):
    results, barrier = [], threading.Barrier(4)

    def run():
        barrier.wait()
        results.append(seed.seed_bootable_image(files))

    threads = [threading.Thread(target=run) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert True in results
    for image_id in (seed.KERNEL_ID, seed.RAMDISK_ID, images.DEFAULT_IMAGE_ID):
        assert images.image_get(image_id).status == "active"
    assert images.image_get(images.DEFAULT_IMAGE_ID).properties == BOOT


def test_the_qemu_driver_seeds_the_built_guest(conf, db, files, monkeypatch):
    conf.set_override("compute_driver", "qemu")
    built = guest_image.GuestImage(files.kernel.parent, "linux-image-6-cloud-amd64")
    monkeypatch.setattr(guest_image, "ensure_built", lambda: built)
    assert seed.seed_default_image() is True
    tiny = images.image_get(images.DEFAULT_IMAGE_ID)
    assert tiny.disk_format == "qcow2" and tiny.properties == BOOT
