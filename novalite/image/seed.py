"""The image every fresh cloud has: `novalite-tiny`, public and active. With the fake
driver it is a blank raw disk made the same way each time (so its checksums are the same
in every deployment); with the qemu driver it is the bootable guest built from Debian
packages, booted by direct kernel boot from two more images, its kernel and ramdisk
(Nova's `kernel_id`/`ramdisk_id`/`os_command_line` image properties)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator
from pathlib import Path

from novalite.conf import CONF
from novalite.image import api, errors
from novalite.image import db as images
from novalite.image.record import ImageRecord

# A blank 64 KiB raw disk: enough for the fake driver and for a download to mean something.
TINY_SIZE = 64 * 1024
KERNEL_ID = "a3c0d5e6-7d1f-4b3a-9b8e-6e0c1f0a1a02"
KERNEL_NAME = "novalite-tiny-kernel"
RAMDISK_ID = "a3c0d5e6-7d1f-4b3a-9b8e-6e0c1f0a1a03"
RAMDISK_NAME = "novalite-tiny-ramdisk"
CHUNK = 1 << 20


@dataclasses.dataclass(frozen=True)
class BootableFiles:
    """What the seed publishes of a built guest (novalite.virt.qemu.guest_image)."""

    kernel: Path
    ramdisk: Path
    disk: Path
    command_line: str


def tiny_image_bytes() -> bytes:
    return bytes(TINY_SIZE)


def seed_default_image() -> bool:
    """Create and upload the default image(s) unless they exist; True when this call
    created or changed any. With the qemu driver this builds the guest first (cached)."""
    if CONF.compute_driver == "qemu":
        from novalite.virt.qemu import guest_image

        built = guest_image.ensure_built()
        return seed_bootable_image(BootableFiles(built.kernel, built.ramdisk, built.disk,
                                                 guest_image.COMMAND_LINE))
    return _publish(_tiny_record("raw"), [tiny_image_bytes()])


def seed_bootable_image(files: BootableFiles) -> bool:
    """The kernel and ramdisk images, and novalite-tiny pointing at them. A novalite-tiny
    left by a fake-driver run keeps its bytes (an active image's data never changes; the
    busybox guest does not need its disk to boot) and gains the properties."""
    created = [
        _publish(ImageRecord(id=KERNEL_ID, name=KERNEL_NAME, visibility="public",
                             disk_format="aki", container_format="aki"),
                 _read(files.kernel)),
        _publish(ImageRecord(id=RAMDISK_ID, name=RAMDISK_NAME, visibility="public",
                             disk_format="ari", container_format="ari"),
                 _read(files.ramdisk)),
    ]
    boot = {"kernel_id": KERNEL_ID, "ramdisk_id": RAMDISK_ID,
            "os_command_line": files.command_line}
    tiny = _tiny_record("qcow2")
    tiny.properties = dict(boot)
    created.append(_publish(tiny, _read(files.disk)))
    upgraded = _add_missing_properties(images.DEFAULT_IMAGE_ID, boot)
    return any(created) or upgraded


def _tiny_record(disk_format: str) -> ImageRecord:
    return ImageRecord(id=images.DEFAULT_IMAGE_ID, name=images.DEFAULT_IMAGE_NAME,
                       visibility="public", disk_format=disk_format, container_format="bare")


def _publish(record: ImageRecord, chunks: Iterable[bytes]) -> bool:
    """Create `record` and upload `chunks` unless an image with its id exists."""
    try:
        images.image_get(record.id)
        return False
    except errors.ImageNotFound:
        pass
    try:
        images.image_create(record)
    except errors.Duplicate:
        return False  # another service seeded it at the same moment
    api.upload(record.id, chunks)
    return True


def _add_missing_properties(image_id: str, wanted: dict[str, str]) -> bool:
    """Set those of the `wanted` properties the image lacks (an operator's own value
    stays); True when it lacked any. Seeds racing here write the same values."""
    image = images.image_get(image_id)
    missing = {k: v for k, v in wanted.items() if k not in image.properties}
    if missing:
        images.image_update(image_id, {"properties": {**image.properties, **missing}})
    return bool(missing)


def _read(path: Path) -> Iterator[bytes]:
    with open(path, "rb") as f:
        while chunk := f.read(CHUNK):
            yield chunk
