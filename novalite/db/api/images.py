"""Image records of the built-in image store."""

from __future__ import annotations

import uuid as uuidlib

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from novalite import exception
from novalite.db import models
from novalite.db.session import reader, retry_on_deadlock, writer
from novalite.objects.image import ImageMeta

# Seeded by the all-in-one so a fresh cloud can boot something; the fake driver needs no
# real bits. A stable id lets docs and scripts refer to it.
DEFAULT_IMAGE_ID = "a3c0d5e6-7d1f-4b3a-9b8e-6e0c1f0a1a01"
DEFAULT_IMAGE_NAME = "novalite-tiny"


def _to_obj(row: models.Image) -> ImageMeta:
    return ImageMeta(
        id=row.id, name=row.name, status=row.status, disk_format=row.disk_format,
        container_format=row.container_format, size=row.size, min_disk=row.min_disk,
        min_ram=row.min_ram, checksum=row.checksum, properties=dict(row.properties or {}),
    )


def image_get(image_id: str) -> ImageMeta:
    with reader() as s:
        row = s.scalar(select(models.Image).filter_by(id=image_id, deleted=0))
        if row is None:
            raise exception.ImageNotFound(image_id=image_id)
        return _to_obj(row)


def image_get_by_name(name: str) -> list[ImageMeta]:
    with reader() as s:
        return [_to_obj(r) for r in s.scalars(select(models.Image).filter_by(name=name,
                                                                           deleted=0))]


@retry_on_deadlock
def image_create(image: ImageMeta, visibility: str = "public", owner: str | None = None
                 ) -> ImageMeta:
    with writer() as s:
        row = models.Image(
            id=image.id or str(uuidlib.uuid4()), name=image.name, status=image.status,
            visibility=visibility, owner=owner, disk_format=image.disk_format,
            container_format=image.container_format, size=image.size,
            min_disk=image.min_disk, min_ram=image.min_ram, checksum=image.checksum,
            properties=image.properties,
        )
        s.add(row)
        s.flush()
        return _to_obj(row)


def seed_default_image() -> bool:
    try:
        image_get(DEFAULT_IMAGE_ID)
        return False
    except exception.ImageNotFound:
        pass
    try:
        image_create(ImageMeta(id=DEFAULT_IMAGE_ID, name=DEFAULT_IMAGE_NAME, status="active",
                               disk_format="qcow2", container_format="bare", size=0))
    except IntegrityError:
        return False  # another service seeded it at the same moment
    return True
