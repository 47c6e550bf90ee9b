"""Image records, their tags and members: the SQL behind the image service."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any

from sqlalchemy import ColumnElement, bindparam, delete, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from novalite import timeutils
from novalite.db import models
from novalite.db.models.image import ImageMember, ImageTag
from novalite.db.session import core_reader, reader, retry_on_deadlock, run_dml, writer
from novalite.image import errors
from novalite.image.record import COLUMNS, ImageRecord

# Seeded by the all-in-one so a fresh cloud can boot something. A stable id lets docs and
# scripts refer to it.
DEFAULT_IMAGE_ID = "a3c0d5e6-7d1f-4b3a-9b8e-6e0c1f0a1a01"
DEFAULT_IMAGE_NAME = "novalite-tiny"


@dataclasses.dataclass(frozen=True)
class Member:
    image_id: str
    member_id: str
    status: str
    created_at: Any
    updated_at: Any


def _record(row: Any, tags: Iterable[str]) -> ImageRecord:
    """`row`: an ORM row or a Core row of the images table's columns."""
    properties = dict(row.properties or {})
    hidden = properties.pop("os_hidden", False)
    return ImageRecord(id=row.id, **{c: getattr(row, c) for c in COLUMNS},
                       os_hidden=bool(hidden), properties=properties, tags=sorted(tags),
                       created_at=row.created_at, updated_at=row.updated_at)


def _stored_properties(properties: dict, os_hidden: bool) -> dict:
    return {**properties, "os_hidden": True} if os_hidden else dict(properties)


# Built once: every boot reads its image.
_TAGS = select(ImageTag.image_id, ImageTag.value).where(
    ImageTag.image_id.in_(bindparam("image_ids", expanding=True)))
_ROW = select(models.Image).where(models.Image.id == bindparam("image_id"),
                                  models.Image.deleted == 0)
_LOCKED_ROW = _ROW.with_for_update()
# A live image as Core rows, one per tag: each boot reads its image, and an ORM read and
# a second statement for the tags cost twice as much.
_WHOLE = (select(models.Image.__table__, ImageTag.value.label("tag"))
          .outerjoin(ImageTag, ImageTag.image_id == models.Image.id)
          .where(models.Image.id == bindparam("image_id"), models.Image.deleted == 0))


def _tags(s: Session, image_ids: list[str]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {i: [] for i in image_ids}
    for image_id, value in s.execute(_TAGS, {"image_ids": image_ids}):
        found[image_id].append(value)
    return found


def _row(s: Session, image_id: str, lock: bool = False) -> models.Image:
    """The live image's row; `lock` holds it until commit (a compare-and-swap's read)."""
    row = s.scalar(_LOCKED_ROW if lock else _ROW, {"image_id": image_id})
    if row is None:
        raise errors.ImageNotFound(image_id=image_id)
    return row


def image_get(image_id: str) -> ImageRecord:
    with core_reader() as r:
        rows = r.connection().execute(_WHOLE, {"image_id": image_id}).all()
    if not rows:
        raise errors.ImageNotFound(image_id=image_id)
    return _record(rows[0], [row.tag for row in rows if row.tag is not None])


def image_get_all(where: ColumnElement[bool]) -> list[ImageRecord]:
    """Every live image matching `where` (the caller's visibility), tags included."""
    with reader() as s:
        rows = list(s.scalars(select(models.Image).where(models.Image.deleted == 0, where)))
        tags = _tags(s, [r.id for r in rows])
        return [_record(r, tags[r.id]) for r in rows]


@retry_on_deadlock
def image_create(image: ImageRecord) -> ImageRecord:
    with writer() as s:
        if s.get(models.Image, image.id) is not None:
            raise errors.Duplicate(image_id=image.id)
        row = models.Image(id=image.id, **{c: getattr(image, c) for c in COLUMNS},
                           properties=_stored_properties(image.properties, image.os_hidden))
        s.add(row)
        tags = list(dict.fromkeys(image.tags))
        s.add_all(ImageTag(image_id=image.id, value=t) for t in tags)
        try:
            s.flush()
        except IntegrityError:
            raise errors.Duplicate(image_id=image.id) from None
        return _record(row, tags)


@retry_on_deadlock
def image_update(image_id: str, values: dict[str, Any],
                 from_status: Iterable[str] | None = None) -> ImageRecord:
    """Set base attributes and/or `properties` (replaced whole) and `os_hidden`. With
    `from_status`, only while the image is in one of them (a compare-and-swap that keeps
    two uploads from both starting)."""
    with writer() as s:
        row = _row(s, image_id, lock=from_status is not None)
        if from_status is not None and row.status not in from_status:
            raise errors.InvalidStatusTransition(cur_status=row.status,
                                                 new_status=values.get("status"))
        current = _record(row, ())
        for key in COLUMNS:
            if key in values:
                setattr(row, key, values[key])
        row.properties = _stored_properties(values.get("properties", current.properties),
                                            values.get("os_hidden", current.os_hidden))
        row.updated_at = timeutils.utcnow()
        s.flush()
        return _record(row, _tags(s, [image_id])[image_id])


@retry_on_deadlock
def image_destroy(image_id: str) -> None:
    """Soft-delete, as Glance does: the id stays taken."""
    with writer() as s:
        row = _row(s, image_id)
        row.status, row.deleted, row.deleted_at = "deleted", 1, timeutils.utcnow()
        s.execute(delete(ImageMember).where(ImageMember.image_id == image_id))
        s.execute(delete(ImageTag).where(ImageTag.image_id == image_id))


@retry_on_deadlock
def tag_add(image_id: str, tag: str) -> None:
    with writer() as s:
        _row(s, image_id)
        exists = s.scalar(select(ImageTag.id).filter_by(image_id=image_id, value=tag))
        if exists is None:
            s.add(ImageTag(image_id=image_id, value=tag))
        s.execute(update(models.Image).filter_by(id=image_id)
                  .values(updated_at=timeutils.utcnow()))


@retry_on_deadlock
def tag_delete(image_id: str, tag: str) -> None:
    with writer() as s:
        _row(s, image_id)
        gone = run_dml(s, delete(ImageTag).filter_by(image_id=image_id, value=tag))
        if not gone.rowcount:
            raise errors.TagNotFound(tag=tag)


@retry_on_deadlock
def tags_set(image_id: str, tags: Iterable[str]) -> None:
    with writer() as s:
        s.execute(delete(ImageTag).where(ImageTag.image_id == image_id))
        s.add_all(ImageTag(image_id=image_id, value=t) for t in dict.fromkeys(tags))


def _member(row: ImageMember) -> Member:
    return Member(row.image_id, row.member, row.status, row.created_at,
                  row.updated_at or row.created_at)


def member_get_all(image_id: str, member_id: str | None = None) -> list[Member]:
    with reader() as s:
        query = select(ImageMember).filter_by(image_id=image_id).order_by(ImageMember.id)
        if member_id is not None:
            query = query.filter_by(member=member_id)
        return [_member(r) for r in s.scalars(query)]


def member_status(image_id: str, member_id: str | None) -> str | None:
    """The status of `member_id`'s membership of the image, None when not a member."""
    found = member_get_all(image_id, member_id) if member_id else []
    return found[0].status if found else None


@retry_on_deadlock
def member_create(image_id: str, member_id: str) -> Member:
    with writer() as s:
        if s.scalar(select(ImageMember.id).filter_by(image_id=image_id, member=member_id)):
            raise errors.MemberDuplicate(member_id=member_id, image_id=image_id)
        row = ImageMember(image_id=image_id, member=member_id, status="pending")
        s.add(row)
        try:
            s.flush()
        except IntegrityError:
            raise errors.MemberDuplicate(member_id=member_id, image_id=image_id) from None
        return _member(row)


def _member_row(s: Session, image_id: str, member_id: str) -> ImageMember:
    row = s.scalar(select(ImageMember).filter_by(image_id=image_id, member=member_id))
    if row is None:
        raise errors.MemberNotFound(member_id=member_id, image_id=image_id)
    return row


@retry_on_deadlock
def member_update(image_id: str, member_id: str, status: str) -> Member:
    with writer() as s:
        row = _member_row(s, image_id, member_id)
        row.status, row.updated_at = status, timeutils.utcnow()
        s.flush()
        return _member(row)


@retry_on_deadlock
def member_delete(image_id: str, member_id: str) -> None:
    with writer() as s:
        s.delete(_member_row(s, image_id, member_id))
