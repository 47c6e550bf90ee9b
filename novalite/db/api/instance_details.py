"""A server's metadata and tags: each change is one transaction holding the instance's
row, so two concurrent writers cannot together pass a limit one of them checked."""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from novalite import exception, timeutils
from novalite.db import models
from novalite.db.session import reader, retry_on_deadlock, run_dml, writer


def _locked_instance(s: Session, uuid: str) -> models.Instance:
    row = s.scalar(select(models.Instance).filter_by(uuid=uuid, deleted=0)
                   .with_for_update())
    if row is None:
        raise exception.InstanceNotFound(instance_id=uuid)
    return row


def _metadata(s: Session, uuid: str) -> dict[str, str | None]:
    rows = s.scalars(select(models.InstanceMetadata)
                     .filter_by(instance_uuid=uuid, deleted=0))
    return {r.key: r.value for r in rows}


def metadata_get(uuid: str) -> dict[str, str | None]:
    with reader() as s:
        return _metadata(s, uuid)


@retry_on_deadlock
def metadata_update(uuid: str, metadata: dict[str, str], replace: bool,
                    check: Callable[[dict[str, str | None]], None]) -> dict[str, str | None]:
    """Merge `metadata` into the server's (or replace it all); `check` sees the result
    before it is written and may refuse it."""
    with writer() as s:
        _locked_instance(s, uuid)
        current = _metadata(s, uuid)
        wanted: dict[str, str | None] = dict(metadata) if replace else {**current, **metadata}
        check(wanted)
        gone = [k for k in current if k not in wanted or current[k] != wanted[k]]
        if gone:
            s.execute(update(models.InstanceMetadata)
                      .where(models.InstanceMetadata.instance_uuid == uuid,
                             models.InstanceMetadata.deleted == 0,
                             models.InstanceMetadata.key.in_(gone))
                      .values(deleted=models.InstanceMetadata.id,
                              deleted_at=timeutils.utcnow()))
        for key, value in wanted.items():
            if key not in current or current[key] != value:
                s.add(models.InstanceMetadata(instance_uuid=uuid, key=key, value=value))
        return wanted


@retry_on_deadlock
def metadata_delete(uuid: str, key: str) -> None:
    with writer() as s:
        _locked_instance(s, uuid)
        result = run_dml(s, update(models.InstanceMetadata)
                           .where(models.InstanceMetadata.instance_uuid == uuid,
                                  models.InstanceMetadata.deleted == 0,
                                  models.InstanceMetadata.key == key)
                           .values(deleted=models.InstanceMetadata.id,
                                   deleted_at=timeutils.utcnow()))
        if not result.rowcount:
            raise exception.NotFound("Metadata item was not found")


def _tags(s: Session, uuid: str) -> list[str]:
    return list(s.scalars(select(models.Tag.tag).filter_by(resource_id=uuid)
                          .order_by(models.Tag.tag)))


def tags_get(uuid: str) -> list[str]:
    with reader() as s:
        return _tags(s, uuid)


@retry_on_deadlock
def tags_set(uuid: str, tags: list[str]) -> list[str]:
    """Replace the server's tags (duplicates collapse)."""
    with writer() as s:
        _locked_instance(s, uuid)
        s.execute(delete(models.Tag).where(models.Tag.resource_id == uuid))
        for tag in dict.fromkeys(tags):
            s.add(models.Tag(resource_id=uuid, tag=tag))
        s.flush()
        return _tags(s, uuid)


@retry_on_deadlock
def tag_add(uuid: str, tag: str, limit: int) -> bool:
    """Add one tag; False if the server had it. Beyond `limit` tags is refused."""
    with writer() as s:
        _locked_instance(s, uuid)
        current = _tags(s, uuid)
        if len(current) >= limit:
            raise exception.Invalid(f"The number of tags exceeded the per-server limit "
                                    f"{limit}")
        if tag in current:
            return False
        s.add(models.Tag(resource_id=uuid, tag=tag))
        return True


@retry_on_deadlock
def tag_delete(uuid: str, tag: str | None = None) -> int:
    """Delete one tag (or all): how many went."""
    with writer() as s:
        _locked_instance(s, uuid)
        query = delete(models.Tag).where(models.Tag.resource_id == uuid)
        if tag is not None:
            query = query.where(models.Tag.tag == tag)
        return run_dml(s, query).rowcount
