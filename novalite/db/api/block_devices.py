"""Block device mappings (Nova's block_device_mapping): the volumes of each instance.

The compute API creates a mapping when it reserves a volume for a server; the compute
service saves the connection it made (through the conductor) and destroys the mapping
when the volume is detached; an instance's destroy takes its mappings with it."""

from __future__ import annotations

import uuid as uuidlib
from collections.abc import Iterable
from typing import Any

from sqlalchemy import Connection, bindparam, delete, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from novalite import exception
from novalite.db import models
from novalite.db.session import (
    Unit,
    core_reader,
    core_writer,
    in_chunks,
    insert_id,
    retry_on_deadlock,
)
from novalite.objects.block_device import BlockDeviceMapping

_B = models.BlockDeviceMapping
_T = _B.__table__
# Built once, and read as Core rows (an ORM object per mapping cost more than the
# reading): every boot, attach, detach and delete of a server reads or removes its
# mappings, and every server view reads which volumes it has.
_BY_ID = select(_T).where(_T.c.id == bindparam("id"))
_BY_UUID = select(_T).where(_T.c.uuid == bindparam("uuid"))
_BY_VOLUME_AND_INSTANCE = select(_T).where(_T.c.volume_id == bindparam("volume_id"),
                                           _T.c.instance_uuid == bindparam("instance_uuid"))
_OF_INSTANCE = select(_T).where(_T.c.instance_uuid == bindparam("instance_uuid")
                                ).order_by(_T.c.id)
_OF_VOLUME = select(_T).where(_T.c.volume_id == bindparam("volume_id"))
_INSERT = insert(_T)
# its SET clause is the values given with each run
_UPDATE = update(_T).where(_T.c.uuid == bindparam("b_uuid"))
_DESTROY = delete(_B).where(_B.uuid == bindparam("uuid"))
_DESTROY_ALL_OF = delete(_T).where(_T.c.instance_uuid == bindparam("instance_uuid"))
_ATTACHED = (select(_B.instance_uuid, _B.volume_id, _B.delete_on_termination)
             .where(_B.instance_uuid.in_(bindparam("uuids", expanding=True)),
                    _B.volume_id.is_not(None))
             .order_by(_B.id))


def _to_obj(row: Any) -> BlockDeviceMapping:
    """`row`: a row of the mappings table."""
    return BlockDeviceMapping(
        uuid=row.uuid, instance_uuid=row.instance_uuid, source_type=row.source_type,
        destination_type=row.destination_type, volume_id=row.volume_id,
        attachment_id=row.attachment_id, device_name=row.device_name,
        boot_index=row.boot_index, delete_on_termination=row.delete_on_termination,
        tag=row.tag, connection_info=row.connection_info, volume_size=row.volume_size,
        disk_bus=row.disk_bus, device_type=row.device_type, image_id=row.image_id,
        snapshot_id=row.snapshot_id, volume_type=row.volume_type, id=row.id,
        created_at=row.created_at)


@retry_on_deadlock
def bdm_create(values: dict[str, Any]) -> BlockDeviceMapping:
    """A new mapping; a volume the instance already has is Nova's 400."""
    try:
        with core_writer() as s:
            bdm_id = insert_id(s, _INSERT, {"uuid": str(uuidlib.uuid4()), **values})
            return _to_obj(s.connection().execute(_BY_ID, {"id": bdm_id}).one())
    except IntegrityError:
        raise exception.InvalidVolume(
            reason=f"volume {values.get('volume_id')} already attached") from None


def bdm_get_by_volume_and_instance(volume_id: str, instance_uuid: str
                                   ) -> BlockDeviceMapping:
    with core_reader() as s:
        row = s.connection().execute(_BY_VOLUME_AND_INSTANCE, {
            "volume_id": volume_id, "instance_uuid": instance_uuid}).first()
        if row is None:
            raise exception.VolumeBDMNotFound(volume_id=volume_id)
        return _to_obj(row)


def bdm_get_all_by_instance(instance_uuid: str) -> list[BlockDeviceMapping]:
    """Oldest first, the order the volumes were attached in."""
    with core_reader() as s:
        return [_to_obj(row) for row in s.connection().execute(
            _OF_INSTANCE, {"instance_uuid": instance_uuid})]


def bdm_get_by_volume(volume_id: str) -> list[BlockDeviceMapping]:
    with core_reader() as s:
        return [_to_obj(row) for row in s.connection().execute(
            _OF_VOLUME, {"volume_id": volume_id})]


@retry_on_deadlock
def bdm_update(bdm_uuid: str, values: dict[str, Any]) -> BlockDeviceMapping:
    with core_writer() as s:
        conn = s.connection()
        if values:
            conn.execute(_UPDATE, {**values, "b_uuid": bdm_uuid})
        row = conn.execute(_BY_UUID, {"uuid": bdm_uuid}).first()
        if row is None:
            raise exception.VolumeBDMNotFound(volume_id=bdm_uuid)
        return _to_obj(row)


@retry_on_deadlock
def bdm_destroy(bdm_uuid: str) -> None:
    """Gone already is fine: a detach retried after a crash."""
    with core_writer() as s:
        s.connection().execute(_DESTROY, {"uuid": bdm_uuid})


def destroy_all_of(s: Unit, instance_uuid: str) -> None:
    """The instance's mappings, in the transaction that destroys it."""
    s.connection().execute(_DESTROY_ALL_OF, {"instance_uuid": instance_uuid})


def volumes_attached(s: Session | Connection, instance_uuids: Iterable[str]
                     ) -> dict[str, list[tuple[str, bool]]]:
    """(volume id, delete_on_termination) of each instance's volumes, oldest first, for
    the servers' views (in the caller's transaction); instances without volumes are
    left out."""
    wanted = sorted(set(instance_uuids))
    found: dict[str, list[tuple[str, bool]]] = {}
    for chunk in in_chunks(wanted):
        for instance_uuid, volume_id, delete_on_termination in s.execute(
                _ATTACHED, {"uuids": chunk}):
            found.setdefault(instance_uuid, []).append(
                (str(volume_id), bool(delete_on_termination)))
    return found
