"""Flavors, their extra specs, and the projects that may use a private flavor.

A deleted flavor's row goes at once, with its extra specs and access list, as in Nova's
API database: every instance keeps its own copy of its flavor (`instances.flavor`), so
nothing needs the row afterwards.

`project_id` arguments restrict reads to what that project may see: public flavors and
the private ones it was given access to (Nova's rule for non-admin callers).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import bindparam, delete, or_, select, true
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, joinedload

from novalite import exception
from novalite.db import models
from novalite.db.session import core_reader, reader, retry_on_deadlock, run_dml, writer
from novalite.objects.flavor import Flavor

# Nova's classic default flavors, then devstack's two small ones for tiny real guests
# (the busybox guest boots in 128 MiB): (flavorid, name, memory_mb, vcpus, root_gb).
DEFAULT_FLAVORS = [
    ("1", "m1.tiny", 512, 1, 1),
    ("2", "m1.small", 2048, 1, 20),
    ("3", "m1.medium", 4096, 2, 40),
    ("4", "m1.large", 8192, 4, 80),
    ("5", "m1.xlarge", 16384, 8, 160),
    ("42", "m1.nano", 128, 1, 1),
    ("84", "m1.micro", 192, 1, 1),
]

# How often an extra-spec write is retried after losing an insert race (as Nova).
EXTRA_SPEC_RETRIES = 10


def _to_obj(row: models.Flavor) -> Flavor:
    return _flavor(row, {spec.key: spec.value or "" for spec in row.extra_specs})


def _flavor(row: Any, extra_specs: dict[str, str]) -> Flavor:
    """`row`: an ORM row or a Core row of the flavors table's columns."""
    return Flavor(
        id=row.id, flavorid=row.flavorid, name=row.name, memory_mb=row.memory_mb,
        vcpus=row.vcpus, root_gb=row.root_gb, ephemeral_gb=row.ephemeral_gb, swap=row.swap,
        rxtx_factor=row.rxtx_factor, vcpu_weight=row.vcpu_weight, disabled=row.disabled,
        is_public=row.is_public, description=row.description, extra_specs=extra_specs)


def _usable_by(project_id: Any):
    """Public flavors, or private ones `project_id` was given access to."""
    granted = select(models.FlavorProject.flavor_id).filter_by(project_id=project_id)
    return or_(models.Flavor.is_public == true(), models.Flavor.id.in_(granted))


# The flavor to change, its extra specs joined to the row.
_ROW = select(models.Flavor).where(models.Flavor.flavorid == bindparam("flavorid")).options(
    joinedload(models.Flavor.extra_specs))
# The flavor to read as Core rows, one per extra spec: each boot and flavor show reads its
# flavor, and an ORM read with its joined specs cost twice as much.
_WHOLE = (select(models.Flavor.__table__,
                 models.FlavorExtraSpec.key.label("spec_key"),
                 models.FlavorExtraSpec.value.label("spec_value"))
          .outerjoin(models.FlavorExtraSpec,
                     models.FlavorExtraSpec.flavor_id == models.Flavor.id)
          .where(models.Flavor.flavorid == bindparam("flavorid")))
_USABLE_WHOLE = _WHOLE.where(_usable_by(bindparam("project_id")))


def _row(s: Session, flavorid: str) -> models.Flavor:
    rows = s.scalars(_ROW, {"flavorid": flavorid}).unique().all()
    if not rows:
        raise exception.FlavorNotFound(flavor_id=flavorid)
    row: models.Flavor = rows[0]
    return row


def _which_exists(flavor: Flavor) -> exception.Conflict:
    """After a unique-key violation: the ID is reported before the name, as Nova does."""
    with reader() as s:
        if s.scalar(select(models.Flavor.id).filter_by(flavorid=flavor.flavorid)):
            return exception.FlavorIdExists(flavor_id=flavor.flavorid)
    return exception.FlavorExists(name=flavor.name)


@retry_on_deadlock
def flavor_create(flavor: Flavor) -> Flavor:
    try:
        with writer() as s:
            row = models.Flavor(
                flavorid=flavor.flavorid, name=flavor.name, memory_mb=flavor.memory_mb,
                vcpus=flavor.vcpus, root_gb=flavor.root_gb, ephemeral_gb=flavor.ephemeral_gb,
                swap=flavor.swap, rxtx_factor=flavor.rxtx_factor,
                vcpu_weight=flavor.vcpu_weight, disabled=flavor.disabled,
                is_public=flavor.is_public, description=flavor.description,
                extra_specs=[models.FlavorExtraSpec(key=k, value=v)
                             for k, v in flavor.extra_specs.items()],
            )
            s.add(row)
            s.flush()
            return _to_obj(row)
    except IntegrityError:
        raise _which_exists(flavor) from None


def flavor_get_by_flavorid(flavorid: str, project_id: str | None = None) -> Flavor:
    query = _WHOLE if project_id is None else _USABLE_WHOLE
    with core_reader() as r:
        rows = r.connection().execute(query, {"flavorid": flavorid,
                                              "project_id": project_id}).all()
    if not rows:
        raise exception.FlavorNotFound(flavor_id=flavorid)
    return _flavor(rows[0], {row.spec_key: row.spec_value or "" for row in rows
                             if row.spec_key is not None})


def flavor_get_all(is_public: bool | None = True, project_id: str | None = None,
                   disabled: bool | None = None, min_memory_mb: int = 0,
                   min_root_gb: int = 0) -> list[Flavor]:
    """Nova's listing, ordered by flavor ID: `is_public=None` is every flavor, False the
    private ones, True the public ones and the private ones `project_id` may use."""
    query = select(models.Flavor).where(models.Flavor.memory_mb >= min_memory_mb,
                                        models.Flavor.root_gb >= min_root_gb)
    if disabled is not None:
        query = query.filter_by(disabled=disabled)
    if is_public and project_id is not None:
        query = query.where(_usable_by(project_id))
    elif is_public is not None:
        query = query.filter_by(is_public=is_public)
    with reader() as s:
        rows = s.scalars(query.order_by(models.Flavor.flavorid, models.Flavor.id))
        return [_to_obj(r) for r in rows]


@retry_on_deadlock
def flavor_set_description(flavorid: str, description: str | None) -> Flavor:
    """The one flavor field Nova lets change after creation (2.55)."""
    with writer() as s:
        row = _row(s, flavorid)
        row.description = description
        s.flush()
        return _to_obj(row)


@retry_on_deadlock
def flavor_destroy(flavorid: str) -> Flavor:
    with writer() as s:
        row = _row(s, flavorid)
        gone = _to_obj(row)
        s.execute(delete(models.FlavorProject).filter_by(flavor_id=row.id))
        s.delete(row)  # its extra specs go with it (delete-orphan)
        return gone


@retry_on_deadlock
def _upsert_extra_specs(flavorid: str, specs: dict[str, str]) -> dict[str, str]:
    with writer() as s:
        row = _row(s, flavorid)
        existing = {spec.key: spec for spec in row.extra_specs}
        for key, value in specs.items():
            if key in existing:
                existing[key].value = value
            else:
                row.extra_specs.append(models.FlavorExtraSpec(key=key, value=value))
        s.flush()
        return {spec.key: spec.value or "" for spec in row.extra_specs}


def flavor_extra_specs_update(flavorid: str, specs: dict[str, str]) -> dict[str, str]:
    """Add or overwrite extra specs; answers all of the flavor's extra specs."""
    for _ in range(EXTRA_SPEC_RETRIES):
        try:
            return _upsert_extra_specs(flavorid, specs)
        except IntegrityError:
            continue  # a concurrent request added one of these keys: now it is an update
    raise exception.FlavorExtraSpecUpdateCreateFailed(id=flavorid, retries=EXTRA_SPEC_RETRIES)


@retry_on_deadlock
def flavor_extra_spec_delete(flavorid: str, key: str) -> None:
    with writer() as s:
        row = _row(s, flavorid)
        spec = next((spec for spec in row.extra_specs if spec.key == key), None)
        if spec is None:
            raise exception.FlavorExtraSpecsNotFound(flavor_id=flavorid, extra_specs_key=key)
        row.extra_specs.remove(spec)  # delete-orphan removes the row


def _projects(s: Session, flavor_id: int) -> list[str]:
    return list(s.scalars(select(models.FlavorProject.project_id)
                          .filter_by(flavor_id=flavor_id).order_by(models.FlavorProject.id)))


def flavor_access_get(flavorid: str) -> list[str]:
    """The projects given access to the flavor, in the order they were added."""
    with reader() as s:
        return _projects(s, _row(s, flavorid).id)


@retry_on_deadlock
def _access_add(flavorid: str, project_id: str) -> list[str]:
    with writer() as s:
        row = _row(s, flavorid)
        if project_id in _projects(s, row.id):
            raise exception.FlavorAccessExists(flavor_id=flavorid, project_id=project_id)
        s.add(models.FlavorProject(flavor_id=row.id, project_id=project_id))
        s.flush()
        return _projects(s, row.id)


def flavor_access_add(flavorid: str, project_id: str) -> list[str]:
    """Let `project_id` use the flavor; answers the access list after the change."""
    try:
        return _access_add(flavorid, project_id)
    except IntegrityError:  # a concurrent request added the same project first
        raise exception.FlavorAccessExists(flavor_id=flavorid,
                                           project_id=project_id) from None


@retry_on_deadlock
def flavor_access_remove(flavorid: str, project_id: str) -> list[str]:
    """Take `project_id`'s access away; answers the access list after the change."""
    with writer() as s:
        row = _row(s, flavorid)
        removed = run_dml(s, delete(models.FlavorProject)
                          .filter_by(flavor_id=row.id, project_id=project_id))
        if not removed.rowcount:
            raise exception.FlavorAccessNotFound(flavor_id=flavorid, project_id=project_id)
        return _projects(s, row.id)


def seed_default_flavors() -> int:
    """Create the DEFAULT_FLAVORS that don't exist yet; returns how many were created."""
    with reader() as s:
        existing = set(s.scalars(select(models.Flavor.flavorid)))
    created = 0
    for flavorid, name, ram, vcpus, disk in DEFAULT_FLAVORS:
        if flavorid not in existing:
            try:
                flavor_create(Flavor(flavorid=flavorid, name=name, memory_mb=ram,
                                     vcpus=vcpus, root_gb=disk))
                created += 1
            except exception.Conflict:
                pass  # another service seeded it at the same moment
    return created
