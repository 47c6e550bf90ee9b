"""The Manila shares attached to servers (Nova's ShareMapping), for 2.97's
/servers/{id}/shares.

novalite has no shared file system service, so nothing here attaches one: the API reads
what is stored, detaches what it finds, and a server's mappings go with it, in the
transaction that destroys it, as Nova drops them when it deletes the instance."""

from __future__ import annotations

import dataclasses

from sqlalchemy import bindparam, delete, select

from novalite.db import models
from novalite.db.session import Unit, reader, retry_on_deadlock, run_dml, writer

_M = models.ShareMapping


@dataclasses.dataclass(frozen=True)
class ShareMapping:
    uuid: str
    instance_uuid: str
    share_id: str
    status: str
    tag: str
    export_location: str
    share_proto: str


def _to_obj(row: models.ShareMapping) -> ShareMapping:
    return ShareMapping(row.uuid, row.instance_uuid, row.share_id, row.status, row.tag,
                        row.export_location, row.share_proto)


def share_mappings_get(instance_uuid: str) -> list[ShareMapping]:
    """The server's shares, in the order they were attached."""
    with reader() as s:
        rows = s.execute(select(_M).where(_M.instance_uuid == instance_uuid)
                         .order_by(_M.id)).scalars()
        return [_to_obj(row) for row in rows]


def share_mapping_get(instance_uuid: str, share_id: str) -> ShareMapping | None:
    with reader() as s:
        row = s.execute(select(_M).where(_M.instance_uuid == instance_uuid,
                                         _M.share_id == share_id)).scalar_one_or_none()
        return None if row is None else _to_obj(row)


@retry_on_deadlock
def share_mapping_destroy(instance_uuid: str, share_id: str) -> bool:
    """False when there was no such mapping, so that of two concurrent detaches one
    is told the share is gone."""
    with writer() as s:
        gone = run_dml(s, delete(_M).where(_M.instance_uuid == instance_uuid,
                                           _M.share_id == share_id))
        return gone.rowcount > 0


_DESTROY_ALL_OF = delete(_M.__table__).where(_M.instance_uuid == bindparam("instance_uuid"))


def destroy_all_of(s: Unit, instance_uuid: str) -> None:
    """The server's mappings, in the transaction that destroys it."""
    s.connection().execute(_DESTROY_ALL_OF, {"instance_uuid": instance_uuid})
