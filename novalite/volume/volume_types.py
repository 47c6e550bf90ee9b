"""Volume types and their extra specs: the SQL behind /types. Every cloud has the
`__DEFAULT__` type (created by the migration that made the tables, as Cinder's is)."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import bindparam, case, delete, func, or_, select
from sqlalchemy.orm import Session

from novalite.conf import CONF
from novalite.db.models import volume as m
from novalite.db.session import Unit
from novalite.volume import errors
from novalite.volume.records import MULTIATTACH, VolumeType

DEFAULT_TYPE_NAME = "__DEFAULT__"


_SPECS = select(m.VolumeTypeExtraSpec.volume_type_id, m.VolumeTypeExtraSpec.key,
                m.VolumeTypeExtraSpec.value).where(
    m.VolumeTypeExtraSpec.volume_type_id.in_(bindparam("ids", expanding=True)))
_BY_IDS = select(m.VolumeType).where(m.VolumeType.id.in_(bindparam("ids", expanding=True)))
# Built once (Session.get builds its select on each call).
_BY_ID = select(m.VolumeType).where(m.VolumeType.id == bindparam("id"))
_TYPES, _SPECS_OF = m.VolumeType.__table__, m.VolumeTypeExtraSpec.__table__
# A type's columns and its specs' under names of their own, so that a volume's read can
# join them to its own row (novalite.volume.volumes).
COLUMNS = (_TYPES.c.id.label("type_id"), _TYPES.c.name.label("type_name"),
           _TYPES.c.description.label("type_description"),
           _TYPES.c.is_public.label("type_is_public"),
           _TYPES.c.created_at.label("type_created_at"),
           _SPECS_OF.c.key.label("spec_key"), _SPECS_OF.c.value.label("spec_value"))
# A type and its specs in one read, for each volume shown (the specs say multiattach).
_WITH_SPECS = select(*COLUMNS).outerjoin(_SPECS_OF, _SPECS_OF.c.volume_type_id == _TYPES.c.id)
_ONE = _WITH_SPECS.where(m.VolumeType.id == bindparam("id"))
# A type by id, else by name (a name may be another type's id): the one by id first.
_BY_ID_OR_NAME = (_WITH_SPECS.where(or_(m.VolumeType.id == bindparam("key"),
                                        m.VolumeType.name == bindparam("key")))
                  .order_by(case((m.VolumeType.id == bindparam("key"), 0), else_=1)))


def records(s: Session, rows: Iterable[m.VolumeType]) -> list[VolumeType]:
    """The types with their extra specs, read in one query for all of them: a list of
    thousands of volumes or of every type reads the specs once, not once a row."""
    rows = list(rows)
    specs: dict[str, dict[str, str]] = {row.id: {} for row in rows}
    if specs:
        for type_id, key, value in s.execute(_SPECS, {"ids": list(specs)}):
            specs[type_id][key] = value
    return [VolumeType(row.id, row.name, row.description, row.is_public, specs[row.id],
                       row.created_at) for row in rows]


def record(s: Session, row: m.VolumeType) -> VolumeType:
    return records(s, [row])[0]


def by_id(s: Session, type_ids: Iterable[str]) -> dict[str, VolumeType]:
    """The types of `type_ids` (those that exist), by id."""
    wanted = sorted(set(type_ids))
    if not wanted:
        return {}
    return {found.id: found for found in records(s, s.scalars(_BY_IDS, {"ids": wanted}))}


def one(s: Unit, type_id: str) -> VolumeType | None:
    """The type of `type_id`, if it exists."""
    return from_rows(s.connection().execute(_ONE, {"id": type_id}).all())


def from_rows(rows: Sequence[Any]) -> VolumeType | None:
    """The type of the first of `rows` of COLUMNS, with its specs (None: no row, or a
    row of no type)."""
    if not rows or rows[0].type_id is None:
        return None
    first = rows[0]
    specs = {row.spec_key: row.spec_value for row in rows
             if row.type_id == first.type_id and row.spec_key is not None}
    return VolumeType(first.type_id, first.type_name, first.type_description,
                      first.type_is_public, specs, first.type_created_at)


def get_row(s: Session, type_id: str) -> m.VolumeType:
    row = s.scalar(_BY_ID, {"id": type_id})
    if row is None:
        raise errors.VolumeTypeNotFound(volume_type_id=type_id)
    return row


def find(s: Unit, id_or_name: str) -> VolumeType:
    """By id, else by name, as a volume create's `volume_type` may name it."""
    found = from_rows(s.connection().execute(_BY_ID_OR_NAME, {"key": id_or_name}).all())
    if found is None:
        raise errors.VolumeTypeNotFoundByName(volume_type_name=id_or_name)
    return found


def default(s: Unit) -> VolumeType:
    """[DEFAULT] default_volume_type, which must exist (Cinder refuses the request)."""
    return find(s, CONF.default_volume_type)


def list_types(s: Session, is_public: bool | None) -> list[VolumeType]:
    query = select(m.VolumeType).order_by(m.VolumeType.created_at, m.VolumeType.id)
    if is_public is not None:
        query = query.where(m.VolumeType.is_public == is_public)
    return records(s, s.scalars(query))


def create(s: Session, name: str, description: str | None, is_public: bool,
           extra_specs: dict[str, str], type_id: str | None = None) -> VolumeType:
    if s.scalar(select(m.VolumeType.id).where(m.VolumeType.name == name)):
        raise errors.VolumeTypeExists(id=name)
    row = m.VolumeType(id=type_id or str(uuid.uuid4()), name=name, description=description,
                       is_public=is_public)
    s.add(row)
    s.flush()
    set_extra_specs(s, row.id, extra_specs)
    return record(s, row)


def update(s: Session, type_id: str, values: dict[str, object]) -> VolumeType:
    row = get_row(s, type_id)
    for key, value in values.items():
        setattr(row, key, value)
    return record(s, row)


def delete_type(s: Session, type_id: str) -> None:
    row = get_row(s, type_id)
    if s.scalar(select(func.count()).select_from(m.Volume)
                .where(m.Volume.volume_type_id == type_id)):
        raise errors.VolumeTypeInUse(volume_type_id=type_id)
    s.execute(delete(m.VolumeTypeExtraSpec)
              .where(m.VolumeTypeExtraSpec.volume_type_id == type_id))
    s.delete(row)


def set_extra_specs(s: Session, type_id: str, specs: dict[str, str]) -> dict[str, str]:
    get_row(s, type_id)
    existing = {r.key: r for r in s.scalars(select(m.VolumeTypeExtraSpec)
                                           .where(m.VolumeTypeExtraSpec.volume_type_id
                                                  == type_id))}
    for key, value in specs.items():
        if key in existing:
            existing[key].value = value
        else:
            s.add(m.VolumeTypeExtraSpec(volume_type_id=type_id, key=key, value=value))
    return specs


def check_specs_change(s: Session, type_id: str, specs: dict[str, str]) -> None:
    """Cinder's rules for a type's extra specs set (`specs`) or deleted (empty): never
    while a volume has the type (a volume keeps what its type said when it was made,
    multiattach among it), and `cacheable` never with `multiattach`."""
    if s.scalar(select(m.Volume.id).where(m.Volume.volume_type_id == type_id).limit(1)):
        raise errors.ExtraSpecsRefused(reason="Volume Type is currently in use.")
    merged = {**record(s, get_row(s, type_id)).extra_specs, **specs}
    if specs and merged.get("multiattach") == merged.get("cacheable") == MULTIATTACH:
        raise errors.ExtraSpecsRefused(reason="cacheable cannot be set with multiattach.")


def delete_extra_spec(s: Session, type_id: str, key: str) -> None:
    get_row(s, type_id)
    deleted = s.execute(delete(m.VolumeTypeExtraSpec).where(
        m.VolumeTypeExtraSpec.volume_type_id == type_id, m.VolumeTypeExtraSpec.key == key))
    if not deleted.rowcount:  # type: ignore[attr-defined]
        raise errors.VolumeTypeExtraSpecsNotFound(volume_type_id=type_id, extra_specs_key=key)

