"""The image every fresh cloud has: `novalite-tiny`, public and active, with real bytes
made the same way each time (so its checksums are the same in every deployment)."""

from __future__ import annotations

from novalite.db.api import images
from novalite.image import api, errors
from novalite.image.record import ImageRecord

# A blank 64 KiB raw disk: enough for the fake driver and for a download to mean something.
TINY_SIZE = 64 * 1024


def tiny_image_bytes() -> bytes:
    return bytes(TINY_SIZE)


def seed_default_image() -> bool:
    """Create and upload the default image unless it exists; True when this call did."""
    try:
        images.image_get(images.DEFAULT_IMAGE_ID)
        return False
    except errors.ImageNotFound:
        pass
    try:
        images.image_create(ImageRecord(
            id=images.DEFAULT_IMAGE_ID, name=images.DEFAULT_IMAGE_NAME, visibility="public",
            disk_format="raw", container_format="bare"))
    except errors.Duplicate:
        return False  # another service seeded it at the same moment
    api.upload(images.DEFAULT_IMAGE_ID, [tiny_image_bytes()])
    return True
