"""Compute node records: what each hypervisor has and uses."""

from __future__ import annotations

import datetime
from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy import Text, bindparam, cast, insert, select, union, update

from novalite import exception, timeutils
from novalite.db import models
from novalite.db.session import (
    core_reader,
    core_writer,
    in_chunks,
    insert_id,
    json_loads,
    reader,
    retry_on_deadlock,
    stamped_since,
    unseen,
)
from novalite.objects.compute_node import ComputeNode

_FIELDS = [f for f in ComputeNode.__dataclass_fields__ if f not in ("updated_at", "id")]
_JSON = ("supported_instances", "stats", "metrics", "numa_topology", "pci_stats")
# Columns an object holds as an empty collection when the row holds none.
_EMPTY = {"supported_instances": list, "stats": dict, "metrics": list, "pci_stats": list}
# The scheduler reads every node at start: plain rows in the object's field order, not ORM
# objects, with the JSON columns cast to text and decoded here (the dialect's JSON
# processing was half of the read at 10,000 nodes; some drivers decode JSON themselves).
_ROW = [cast(col, Text).label(col.name) if col.name in _JSON else col
        for col in (models.ComputeNode.__table__.c[f] for f in _FIELDS)] + [
    models.ComputeNode.__table__.c[f] for f in ("id", "updated_at", "created_at", "deleted")]
_JSON_AT = [_FIELDS.index(f) for f in _JSON]
_EMPTY_AT = [(_FIELDS.index(f), empty) for f, empty in _EMPTY.items()]
# Most nodes' JSON columns hold one of these: built without the JSON decoder.
_LITERALS: dict[str, Callable[[], Any]] = {"[]": list, "{}": dict, "null": lambda: None}


def _decode(text: str | None) -> Any:
    if not text:
        return None
    literal = _LITERALS.get(text)
    return literal() if literal else json_loads(text)


_ID_AT = len(_FIELDS)  # then updated_at, created_at, deleted


def _from_row(row: Any) -> ComputeNode:
    """A node from a row of _ROW, read by position (a scheduler's start converts every
    node's row, and a row's lookups by name cost more than by position)."""
    values = list(row)
    for at in _JSON_AT:
        values[at] = _decode(values[at])
    for at, empty in _EMPTY_AT:
        values[at] = values[at] or empty()
    # The object's last two fields: when it was last written, its id.
    values[_ID_AT:] = (values[_ID_AT + 1] or values[_ID_AT + 2], values[_ID_AT])
    return ComputeNode(*values)


def _to_obj(node: models.ComputeNode) -> ComputeNode:
    """A node from its ORM object."""
    return _written({f: getattr(node, f) for f in _FIELDS},
                    node.updated_at or node.created_at, node.id)


def _written(values: dict[str, Any], updated_at: datetime.datetime | None,
             node_id: int) -> ComputeNode:
    """A node from the values of its columns in _FIELDS (and others, left out)."""
    data = {f: values[f] for f in _FIELDS}
    for field, empty in _EMPTY.items():
        data[field] = data[field] or empty()
    return ComputeNode(**data, updated_at=updated_at, id=node_id)


# Built once: each compute saves its nodes whenever their usage changes (each claim), and
# a 10,000-host start creates them all; plain statements, not ORM objects, as the ORM's
# read, flush and unit of work were two thirds of a save.
_TABLE = models.ComputeNode.__table__
_IDS_BY_UUID = select(_TABLE.c.uuid, _TABLE.c.id).where(
    _TABLE.c.uuid.in_(bindparam("b_uuids", expanding=True)))
_INSERT = insert(_TABLE)
_UPDATE = update(_TABLE).where(_TABLE.c.id == bindparam("b_id"),
                               _TABLE.c.uuid == bindparam("b_uuid"))


def compute_node_save(node: ComputeNode, service_id: int | None = None) -> ComputeNode:
    """Create or update the node identified by its uuid (stable per hypervisor node); an
    update without a `service_id` keeps the node's."""
    return compute_node_save_many([(node, service_id)])[0]


@retry_on_deadlock
def compute_node_save_many(saves: Sequence[tuple[ComputeNode, int | None]]
                           ) -> list[ComputeNode]:
    """compute_node_save of each (node, service_id) in one transaction (nodes of distinct
    uuids): a compute process starting thousands of simulated hosts writes them
    together. A node that carries its id (the compute learnt it from a save) is updated
    without looking its id up first."""
    saved = []
    with core_writer() as s:
        conn = s.connection()
        now = timeutils.utcnow()  # with the write lock held: the stamp precedes the commit
        # by the statements only (the schedulers re-read CLOCK_MARGIN of the past)
        ids = {node.uuid: node.id for node, _ in saves if node.id is not None}
        for chunk in in_chunks([node.uuid for node, _ in saves if node.id is None]):
            ids.update(conn.execute(_IDS_BY_UUID, {"b_uuids": chunk}).all())
        for node, service_id in saves:
            values: dict[str, Any] = {f: getattr(node, f) for f in _FIELDS}
            values["free_ram_mb"] = node.memory_mb - node.memory_mb_used
            values["free_disk_gb"] = node.local_gb - node.local_gb_used
            node_id = ids.get(node.uuid)
            update_values = {**values, "b_id": node_id, "b_uuid": node.uuid,
                             "updated_at": now, "deleted": 0, "deleted_at": None}
            if service_id is not None:
                update_values["service_id"] = service_id
            # a row gone since the node learnt its id (purged) is made again
            if node_id is None or not conn.execute(_UPDATE, update_values).rowcount:
                node_id = insert_id(s, _INSERT, {**values, "service_id": service_id,
                                                 "created_at": now})
            saved.append(_written(values, now, node_id))
    return saved


# Built once, as the reads below: run through the connection, no ORM loading per row.
_ALL = select(*_ROW).where(models.ComputeNode.deleted == 0).order_by(models.ComputeNode.id)


def compute_node_get_all() -> list[ComputeNode]:
    with core_reader() as s:
        return [_from_row(r) for r in s.connection().execute(_ALL)]


# Every scheduling decision's refresh asks: each stamp's index finds its rows (SQLite
# scanned every node in id order for the three stamps ORed: 2 ms of CPU a decision at
# 10,000 hosts, to find a handful), put in id order once read.
_CHANGED = union(*(select(*_ROW).where(stamp >= bindparam("since")) for stamp in (
    models.ComputeNode.updated_at, models.ComputeNode.created_at,
    models.ComputeNode.deleted_at)))


def compute_node_get_changed(since: datetime.datetime,
                             known: dict[str, tuple[Any, ...]] | None = None
                             ) -> tuple[list[ComputeNode], list[str]]:
    """Nodes created, updated or deleted at or after `since`: (live nodes, deleted uuids).
    The scheduler's refresh reads only these, so its cost follows the change rate.
    `known`: the row last read of each node by uuid (see novalite.db.session.unseen); a
    live node whose row is still that one is left out."""
    with core_reader() as s:
        rows = sorted(s.connection().execute(_CHANGED, {"since": stamped_since(since)}),
                      key=lambda row: row.id)
    gone = [r.uuid for r in rows if r.deleted]
    live = [r for r in rows if not r.deleted]
    if known is None:
        return [_from_row(r) for r in live], gone
    for uuid in gone:
        known.pop(uuid, None)
    return [_from_row(r) for r in unseen(live, known, "uuid")], gone


def compute_node_get_by_host(host: str) -> list[ComputeNode]:
    with reader() as s:
        rows = s.execute(select(*_ROW).filter_by(host=host, deleted=0))
        return [_from_row(r) for r in rows]


def compute_node_get(ident: int | str) -> ComputeNode:
    """By id (an int) or uuid (a str): the hypervisors API names nodes by id before 2.53
    and by uuid from then on."""
    column = models.ComputeNode.id if isinstance(ident, int) else models.ComputeNode.uuid
    with reader() as s:
        row = s.scalar(select(models.ComputeNode).where(column == ident,
                                                        models.ComputeNode.deleted == 0))
        if row is None:
            raise exception.ComputeHostNotFound(host=ident)
        return _to_obj(row)


def compute_node_search_by_hypervisor(pattern: str) -> list[ComputeNode]:
    """Nodes whose hypervisor hostname contains `pattern` (a SQL LIKE, as Nova's)."""
    node = models.ComputeNode
    with reader() as s:
        rows = s.scalars(select(node).where(node.deleted == 0,
                                            node.hypervisor_hostname.like(f"%{pattern}%"))
                         .order_by(node.id))
        return [_to_obj(r) for r in rows]
