"""Instances: create, read, guarded state transitions, soft delete."""

from __future__ import annotations

import dataclasses
import datetime
import functools
from collections.abc import Callable, Iterable, Sequence
from itertools import product
from typing import Any

from sqlalchemy import Connection, and_, bindparam, func, insert, or_, select, update
from sqlalchemy import inspect as sa_inspect
from sqlalchemy.orm import joinedload, lazyload

from novalite import exception, timeutils
from novalite.db import models
from novalite.db.api import block_devices, server_groups, share_mappings
from novalite.db.session import (
    Unit,
    core_reader,
    core_writer,
    in_chunks,
    reader,
    retry_on_deadlock,
    writer,
)
from novalite.objects import device_metadata, network_info, states
from novalite.objects.flavor import Flavor
from novalite.objects.instance import Instance

# Sentinel: "don't check the current task_state".
ANY = object()


def _instance(row: Any, metadata: dict[str, str], cached_network: list | None,
              tags: list[str]) -> Instance:
    """The instance from its row (an ORM object or a Core row: both have the columns as
    attributes) and what other tables hold of it."""
    flavor = (row.flavor or {}).get("cur")
    return Instance(
        uuid=row.uuid, display_name=row.display_name, project_id=row.project_id,
        user_id=row.user_id, image_ref=row.image_ref,
        flavor=Flavor.from_fields(flavor) if flavor else None, host=row.host, node=row.node,
        vm_state=row.vm_state, task_state=row.task_state, power_state=row.power_state,
        availability_zone=row.availability_zone, key_name=row.key_name,
        launch_index=row.launch_index, launched_at=row.launched_at,
        created_at=row.created_at, updated_at=row.updated_at, deleted=bool(row.deleted),
        deleted_at=row.deleted_at,
        locked=bool(row.locked), system_metadata=dict(row.system_metadata or {}),
        metadata=metadata, network_info=network_info.from_json(cached_network),
        hostname=row.hostname, key_data=row.key_data, user_data=row.user_data,
        config_drive=row.config_drive or "",
        device_metadata=device_metadata.from_json(row.device_metadata),
        tags=tags,
    )


def _to_obj(row: models.Instance) -> Instance:
    return _instance(row, {m.key: m.value or "" for m in row.metadata_items},
                     row.info_cache.network_info if row.info_cache else None,
                     [] if "tags" in sa_inspect(row).unloaded else [t.tag for t in row.tags])


def to_view(row: models.Instance) -> dict[str, Any]:
    """Every column, for API views (which show more than services pass around)."""
    data = {c.key: getattr(row, c.key) for c in models.Instance.__table__.columns}
    data["metadata"] = {m.key: m.value for m in row.metadata_items}
    data["tags"] = [t.tag for t in row.tags]
    data["network_info"] = list(row.info_cache.network_info) if row.info_cache else []
    return data


# Built once: each boot inserts with them (plain statements: the ORM's unit of work was
# a quarter of a boot's request).
_INSERT = insert(models.Instance.__table__)
_INSERT_METADATA = insert(models.InstanceMetadata.__table__)
_INSERT_TAG = insert(models.Tag.__table__)


def add_instance(s: Unit, values: dict[str, Any], metadata: dict[str, str] | None = None,
                 tags: list[str] | None = None) -> None:
    """Add an instance (with its metadata and tags) inside the caller's transaction, so a
    boot's records commit together."""
    values = dict(values)  # a retried transaction must see the same arguments
    flavor: Flavor = values.pop("flavor")
    conn = s.connection()
    conn.execute(_INSERT, {
        **values, "flavor": {"cur": flavor.fields(), "old": None, "new": None},
        "instance_type_id": flavor.id, "vcpus": flavor.vcpus,
        "memory_mb": flavor.memory_mb, "root_gb": flavor.root_gb,
        "ephemeral_gb": flavor.ephemeral_gb})
    if metadata:
        conn.execute(_INSERT_METADATA, [{"instance_uuid": values["uuid"], "key": key,
                                         "value": value} for key, value in metadata.items()])
    if tags:
        conn.execute(_INSERT_TAG, [{"resource_id": values["uuid"], "tag": tag}
                                   for tag in dict.fromkeys(tags)])


@retry_on_deadlock
def instance_create(values: dict[str, Any], metadata: dict[str, str] | None = None,
                    tags: list[str] | None = None) -> Instance:
    with writer() as s:
        add_instance(s, values, metadata, tags)
        return _read(s, values["uuid"], None, read_deleted=False, with_tags=True)


def _scoped(query: Any, read_deleted: bool, by_project: bool) -> Any:
    """`query` of the instance by uuid, live only unless `read_deleted`, in the bound
    project if `by_project`; a live row first."""
    if not read_deleted:
        query = query.where(models.Instance.deleted == 0)
    if by_project:
        query = query.where(models.Instance.project_id == bindparam("project_id"))
    return query.order_by(models.Instance.deleted)


def _row_query(read_deleted: bool, by_project: bool) -> Any:
    """The instance's ORM row by uuid (a bound parameter), built once per shape: building
    a statement and its cache key cost more than running it. Its metadata and network
    info come joined to the row, in the one statement, rather than by a query each; its
    tags only if read."""
    query = select(models.Instance).where(models.Instance.uuid == bindparam("uuid")).options(
        joinedload(models.Instance.metadata_items), joinedload(models.Instance.info_cache),
        lazyload(models.Instance.tags))
    return _scoped(query, read_deleted, by_project)


_ROW_QUERIES = {shape: _row_query(*shape) for shape in product((False, True), repeat=2)}
_INFO, _META = models.info_cache.InstanceInfoCache, models.InstanceMetadata


def _read_query(read_deleted: bool, by_project: bool) -> Any:
    """The instance by uuid with its network info and its metadata, a row per item."""
    query = (select(models.Instance.__table__, _INFO.network_info.label("info_network"),
                    _META.key.label("meta_key"), _META.value.label("meta_value"))
             .outerjoin(_INFO, _INFO.instance_uuid == models.Instance.uuid)
             .outerjoin(_META, and_(_META.instance_uuid == models.Instance.uuid,
                                    _META.deleted == 0))
             .where(models.Instance.uuid == bindparam("uuid")))
    return _scoped(query, read_deleted, by_project).order_by(_META.id)


_READ_QUERIES = {shape: _read_query(*shape) for shape in product((False, True), repeat=2)}
_TAGS_OF = select(models.Tag.tag).where(models.Tag.resource_id == bindparam("uuid")
                                        ).order_by(models.Tag.tag)


def _read_rows(connection: Connection, uuid: str, project_id: str | None,
               read_deleted: bool) -> tuple[Any, dict[str, str | None]]:
    """The instance's row (its columns first, then its network info) and its metadata,
    as Core rows: an ORM object and its loaded relationships cost twice the reading."""
    rows = connection.execute(_READ_QUERIES[read_deleted, project_id is not None],
                              {"uuid": uuid, "project_id": project_id}).all()
    if not rows:
        raise exception.InstanceNotFound(instance_id=uuid)
    first = rows[0]
    return first, {row.meta_key: row.meta_value for row in rows
                   if row.id == first.id and row.meta_key is not None}


def _read(s: Unit, uuid: str, project_id: str | None, read_deleted: bool,
          with_tags: bool = False) -> Instance:
    """The instance as the services pass it around: every state change of a build
    reads its instance back (the tags only if asked for)."""
    connection = s.connection()
    first, metadata = _read_rows(connection, uuid, project_id, read_deleted)
    tags = list(connection.scalars(_TAGS_OF, {"uuid": uuid})) if with_tags else []
    return _instance(first, {key: value or "" for key, value in metadata.items()},
                     first.info_network, tags)


def _get_row(s: Any, uuid: str, project_id: str | None, read_deleted: bool
             ) -> models.Instance:
    """The row to change or to show whole (its columns for an API view)."""
    query = _ROW_QUERIES[read_deleted, project_id is not None]
    rows = s.scalars(query, {"uuid": uuid, "project_id": project_id}).unique().all()
    if not rows:
        raise exception.InstanceNotFound(instance_id=uuid)
    row: models.Instance = rows[0]
    return row


def instance_get(uuid: str, project_id: str | None = None,
                 read_deleted: bool = False) -> Instance:
    with core_reader() as s:
        return _read(s, uuid, project_id, read_deleted)


_COLUMN_KEYS = tuple(column.key for column in models.Instance.__table__.columns)


def instance_get_view(uuid: str, project_id: str | None = None) -> dict[str, Any]:
    """The live instance as to_view() shows it, with its volumes, read by the
    statements _read() runs: a client waiting for its server polls this."""
    with core_reader() as s:
        conn = s.connection()
        first, metadata = _read_rows(conn, uuid, project_id, read_deleted=False)
        view = dict(zip(_COLUMN_KEYS, first, strict=False))  # the table's columns lead
        view["metadata"] = metadata
        view["tags"] = list(conn.scalars(_TAGS_OF, {"uuid": uuid}))
        view["network_info"] = list(first.info_network or [])
        view["volumes_attached"] = block_devices.volumes_attached(conn, [uuid]).get(uuid, [])
        return view


def instance_uuids_by_host(hosts: set[str] | None = None) -> dict[str, set[str]]:
    """The live instances of each host (of `hosts`, or of all)."""
    query = select(models.Instance.host, models.Instance.uuid).where(
        models.Instance.deleted == 0, models.Instance.host.is_not(None))
    if hosts is not None:
        query = query.where(models.Instance.host.in_(sorted(hosts)))
    with reader() as s:
        rows = s.execute(query)
        by_host: dict[str, set[str]] = {}
        for host, uuid in rows:
            if host is not None:  # excluded by the query; this tells the type checker
                by_host.setdefault(host, set()).add(uuid)
        return by_host


def instance_get_deleted(uuids: Iterable[str]) -> list[Instance]:
    """Those of `uuids` that are deleted (soft-deleted servers, still restorable, are
    not)."""
    with reader() as s:
        rows = s.scalars(select(models.Instance).where(
            models.Instance.uuid.in_(sorted(uuids)), models.Instance.deleted != 0))
        return [_to_obj(r) for r in rows]


# Built once, as every host's periodic resource update asks (see migrations').
_ALL_BY_HOSTS = select(models.Instance).where(
    models.Instance.host.in_(bindparam("hosts", expanding=True)),
    models.Instance.deleted == 0)


def instance_get_all_by_host(host: str) -> list[Instance]:
    return instance_get_all_by_hosts([host]).get(host, [])


def instance_get_all_by_hosts(hosts: Sequence[str]) -> dict[str, list[Instance]]:
    """The live instances of each of `hosts` that has any, in one read per 500 hosts: a
    compute process starting thousands of simulated hosts asks for all of them."""
    found: dict[str, list[Instance]] = {}
    with reader() as s:
        for chunk in in_chunks(hosts):
            for row in s.scalars(_ALL_BY_HOSTS, {"hosts": chunk}):
                found.setdefault(str(row.host), []).append(_to_obj(row))
    return found


_COLUMN_NAMES = frozenset(models.Instance.__table__.c.keys())


def _one_of(column: Any, name: str, count: int) -> Any:
    """`column = :name` for one value, else an expanding IN: that is rendered again on
    each run, and most guards name one state."""
    return column == bindparam(name) if count == 1 else column.in_(
        bindparam(name, expanding=True))


@functools.cache
def _guarded_update(tasks: int | None, or_no_task: bool, vm_states: int | None,
                    host: str) -> Any:
    """instance_update's UPDATE for one shape of guard, built once: what it sets comes
    with its parameters (the columns named), the guard's values as `b_` parameters.
    `tasks` and `vm_states`: None for no guard, else how many values (1, or 2 for
    any other number)."""
    table = models.Instance.__table__
    stmt = update(table).where(table.c.uuid == bindparam("b_uuid"), table.c.deleted == 0)
    if tasks is not None:
        clauses = [_one_of(table.c.task_state, "b_tasks", tasks)]
        if or_no_task:
            clauses.append(table.c.task_state.is_(None))
        stmt = stmt.where(or_(*clauses))
    if vm_states is not None:
        stmt = stmt.where(_one_of(table.c.vm_state, "b_vm_states", vm_states))
    if host == "null":
        stmt = stmt.where(table.c.host.is_(None))
    elif host == "value":
        stmt = stmt.where(table.c.host == bindparam("b_host"))
    return stmt


def _guard_values(values: list[Any] | None) -> tuple[int | None, Any]:
    """A guard's shape (see _guarded_update) and its parameter."""
    if values is None:
        return None, None
    return (1, values[0]) if len(values) == 1 else (2, values)


@retry_on_deadlock
def instance_update(
    uuid: str,
    values: dict[str, Any],
    expected_task_state: Any = ANY,
    expected_vm_state: Iterable[str] | None = None,
    along: Callable[[Unit], None] | None = None,
    expected_host: Any = ANY,
    with_tags: bool = False,
) -> Instance:
    """Update atomically, only if the instance is in the expected states; the instance
    as saved (with its tags if asked for).

    The check and the write are one UPDATE, so two services racing on one instance (a
    delete during a build, say) cannot both win: the loser gets UnexpectedTaskStateError.
    `along` adds writes that commit with the update, or not at all (the action record of
    the step the update starts or ends): one transaction instead of two.
    """
    unknown = set(values) - _COLUMN_NAMES
    if unknown:
        raise ValueError(f"Not columns of instances: {sorted(unknown)}")
    allowed = (ANY if expected_task_state is ANY
               else list(expected_task_state) if isinstance(expected_task_state, list | tuple)
               else [expected_task_state])
    tasks, b_tasks = _guard_values(
        None if allowed is ANY else [t for t in allowed if t is not None])
    vm_states, b_vm_states = _guard_values(
        None if expected_vm_state is None else list(expected_vm_state))
    stmt = _guarded_update(
        tasks, allowed is not ANY and None in allowed, vm_states,
        "any" if expected_host is ANY else "null" if expected_host is None else "value")
    params = {**values, "updated_at": timeutils.utcnow(), "b_uuid": uuid,
              "b_tasks": b_tasks, "b_vm_states": b_vm_states, "b_host": expected_host}
    with core_writer() as s:
        connection = s.connection()
        result = connection.execute(stmt, params)
        if not result.rowcount:
            row, _ = _read_rows(connection, uuid, None, False)  # raises InstanceNotFound
            error = (exception.UnexpectedDeletingTaskStateError
                     if row.task_state == states.DELETING else exception.UnexpectedTaskStateError)
            raise error(instance_uuid=uuid, expected=expected_task_state,
                        actual=row.task_state)
        if along is not None:
            along(s)
        return _read(s, uuid, None, read_deleted=False, with_tags=with_tags)


@retry_on_deadlock
def system_metadata_update(uuid: str,
                           change: Callable[[dict[str, str]], dict[str, str] | None]) -> bool:
    """Apply `change` to the instance's system metadata in one transaction: it gets the
    metadata as stored and gives the keys to set, or None to leave it as it is (a check
    that must not race another writer). Whether it changed."""
    with writer() as s:
        row = _get_row(s, uuid, None, read_deleted=False)
        current = dict(row.system_metadata or {})
        changes = change(current)
        if changes is None:
            return False
        row.system_metadata = {**current, **changes}
        return True


# Built once, run on the connection (each server delete runs them): the live row and its
# metadata soft-deleted, `deleted` taking each row's id.
_I, _M = models.Instance.__table__, models.InstanceMetadata.__table__
_SOFT_DELETE = (update(_I).where(_I.c.uuid == bindparam("b_uuid"), _I.c.deleted == 0)
                .values(vm_state=states.DELETED, task_state=None, power_state=states.NOSTATE,
                        terminated_at=func.coalesce(_I.c.terminated_at, bindparam("b_now")),
                        deleted=_I.c.id, deleted_at=bindparam("b_now"),
                        updated_at=bindparam("b_now")))
_SOFT_DELETE_METADATA = (update(_M).where(_M.c.instance_uuid == bindparam("b_uuid"),
                                          _M.c.deleted == 0)
                         .values(deleted=_M.c.id, deleted_at=bindparam("b_now"),
                                 updated_at=bindparam("b_now")))


@retry_on_deadlock
def instance_destroy(uuid: str) -> Instance:
    """Soft-delete as Nova does: the row stays, `deleted` takes the row id; its block
    device mappings and share mappings go with it. The instance as it was, deleted."""
    now = timeutils.utcnow()
    with core_writer() as s:
        instance = _read(s, uuid, None, read_deleted=False)
        conn = s.connection()
        conn.execute(_SOFT_DELETE, {"b_uuid": uuid, "b_now": now})
        conn.execute(_SOFT_DELETE_METADATA, {"b_uuid": uuid, "b_now": now})
        server_groups.group_remove_members(s, [uuid])
        block_devices.destroy_all_of(s, uuid)
        share_mappings.destroy_all_of(s, uuid)
    return dataclasses.replace(instance, vm_state=states.DELETED, task_state=None,
                               power_state=states.NOSTATE, updated_at=now, deleted=True,
                               deleted_at=now)


def image_properties_by_instance(uuids: Iterable[str]) -> dict[str, dict[str, Any]]:
    """The properties of the image each live instance of `uuids` was booted from
    (instances whose image is unknown are left out)."""
    wanted = sorted(set(uuids))
    found: dict[str, dict[str, Any]] = {}
    with reader() as s:
        for chunk in in_chunks(wanted):
            query = (select(models.Instance.uuid, models.Image.properties)
                     .join(models.Image, models.Image.id == models.Instance.image_ref)
                     .where(models.Instance.uuid.in_(chunk),
                            models.Instance.deleted == 0))
            found.update((uuid, dict(props or {})) for uuid, props in s.execute(query))
    return found


_USAGE = (select(func.count(models.Instance.id), func.sum(models.Instance.vcpus),
                 func.sum(models.Instance.memory_mb))
          .where(models.Instance.deleted == 0,
                 models.Instance.project_id == bindparam("project_id"),
                 or_(models.Instance.vm_state != states.SOFT_DELETED,
                     models.Instance.vm_state.is_(None))))
_USER_USAGE = _USAGE.where(models.Instance.user_id == bindparam("user_id"))


def instance_usage(project_id: str, user_id: str | None = None) -> dict[str, int]:
    """What a project's (or one of its users') live instances count against its quota:
    instances, cores and ram (soft-deleted ones, which may still be restored, do not
    count, as in Nova). Asked twice a boot (its check and recheck): built once."""
    query = _USAGE if user_id is None else _USER_USAGE
    with reader() as s:
        count, cores, ram = s.execute(query, {"project_id": project_id,
                                              "user_id": user_id}).one()
    return {"instances": int(count or 0), "cores": int(cores or 0), "ram": int(ram or 0)}


def instance_ids_by_host(hosts: Iterable[str]) -> dict[str, list[tuple[int, str]]]:
    """(row id, uuid) of the live instances on each of `hosts`, oldest first: what the
    hypervisors API lists (the row id gives the instance's name)."""
    query = (select(models.Instance.host, models.Instance.id, models.Instance.uuid)
             .where(models.Instance.deleted == 0,
                    models.Instance.host.in_(sorted(set(hosts))))
             .order_by(models.Instance.id))
    by_host: dict[str, list[tuple[int, str]]] = {}
    with reader() as s:
        for host, row_id, uuid in s.execute(query):
            if host is not None:  # excluded by the query; this tells the type checker
                by_host.setdefault(host, []).append((row_id, uuid))
    return by_host


def instances_active_in_window(start: datetime.datetime, end: datetime.datetime,
                               project_id: str | None = None) -> list[dict[str, Any]]:
    """Instances (deleted ones too) that ran at some time between `start` and `end`,
    oldest first: what os-simple-tenant-usage bills."""
    row = models.Instance
    query = (select(row.uuid, row.display_name, row.project_id, row.vcpus, row.memory_mb,
                    row.root_gb, row.ephemeral_gb, row.flavor, row.vm_state,
                    row.launched_at, row.terminated_at)
             .where(row.launched_at < end,
                    or_(row.terminated_at.is_(None), row.terminated_at > start))
             .order_by(row.id))
    if project_id is not None:
        query = query.where(row.project_id == project_id)
    with reader() as s:
        return [dict(r) for r in s.execute(query).mappings()]
