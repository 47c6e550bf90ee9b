"""The server list: filters, sort keys and marker paging as Nova's instance_get_all_by_
filters_sort applies them.

Exact filters, time bounds and tag filters are SQL; regular-expression filters (Nova's
REGEXP/LIKE columns) are applied to the ordered ids in Python, which also places the
marker, so only the page's rows are loaded in full.
"""

from __future__ import annotations

import dataclasses
import datetime
import re
from collections.abc import Sequence
from typing import Any

from sqlalchemy import and_, exists, false, not_, or_, select

from novalite import exception
from novalite.db import models
from novalite.db.api import block_devices
from novalite.db.session import core_reader
from novalite.objects import states

_I = models.Instance


@dataclasses.dataclass
class ServerFilters:
    """What a list asks for; columns are the instances table's."""

    exact: dict[str, list[Any]] = dataclasses.field(default_factory=dict)
    regex: dict[str, str] = dataclasses.field(default_factory=dict)
    deleted: bool | None = False  # None: live and deleted alike
    # Whether soft-deleted servers count as deleted ones; None: as Nova, they do
    # (listed with the deleted, not with the live)
    soft_deleted: bool | None = None
    changes_since: datetime.datetime | None = None
    changes_before: datetime.datetime | None = None
    tags: list[str] = dataclasses.field(default_factory=list)
    tags_any: list[str] = dataclasses.field(default_factory=list)
    not_tags: list[str] = dataclasses.field(default_factory=list)
    not_tags_any: list[str] = dataclasses.field(default_factory=list)
    matches_nothing: bool = False  # a filter no server can pass (an unknown flavor, ...)
    # ip / ip6: IP version -> a regular expression one of its fixed addresses matches
    addresses: dict[int, str] = dataclasses.field(default_factory=dict)


def _has_tag(tag: str) -> Any:
    return exists().where(models.Tag.resource_id == _I.uuid, models.Tag.tag == tag)


def _tag_conditions(f: ServerFilters) -> list[Any]:
    conditions = [_has_tag(t) for t in f.tags]
    if f.tags_any:
        conditions.append(or_(*[_has_tag(t) for t in f.tags_any]))
    if f.not_tags:
        conditions.append(not_(and_(*[_has_tag(t) for t in f.not_tags])))
    conditions.extend(not_(_has_tag(t)) for t in f.not_tags_any)
    return conditions


def _conditions(f: ServerFilters) -> list[Any]:
    conditions: list[Any] = [false()] if f.matches_nothing else []
    soft = _I.vm_state == states.SOFT_DELETED
    if f.deleted:
        conditions.append(_I.deleted != 0 if f.soft_deleted is False
                          else or_(_I.deleted != 0, soft))
    elif f.deleted is False:
        conditions.append(_I.deleted == 0)
        if not f.soft_deleted:
            conditions.append(or_(not_(soft), _I.vm_state.is_(None)))
    for column, values in f.exact.items():
        conditions.append(getattr(_I, column).in_(values))
    if f.changes_since is not None:
        conditions.append(_I.updated_at >= f.changes_since)
    if f.changes_before is not None:
        conditions.append(_I.updated_at <= f.changes_before)
    return conditions + _tag_conditions(f)


def _order(sort: list[tuple[str, str]]) -> list[Any]:
    """The sort keys, then Nova's tie-breakers (created_at, id) in the first direction."""
    keys = [k for k, _ in sort]
    direction = sort[0][1] if sort else "desc"
    sort = sort + [(k, direction) for k in ("created_at", "id") if k not in keys]
    return [getattr(_I, k).desc() if d == "desc" else getattr(_I, k).asc()
            for k, d in sort]


def _matches(values: Sequence[Any], patterns: dict[str, re.Pattern]) -> bool:
    return all(value is not None and pattern.search(str(value))
               for (column, pattern), value in zip(patterns.items(), values, strict=True))


def _marker_after(s: Any, marker: str, filters: ServerFilters) -> Any:
    """Rows after the marker in the default order (created_at, then id, both newest
    first): a keyset condition, so a page costs the same wherever it starts."""
    row = s.execute(select(_I.created_at, _I.id).where(_I.uuid == marker,
                                                      *_conditions(filters))).first()
    if row is None:
        raise exception.MarkerNotFound(marker=marker)
    created, row_id = row
    return or_(_I.created_at < created, and_(_I.created_at == created, _I.id < row_id))


def _fixed_addresses(s: Any, uuids: list[str]) -> dict[str, list[tuple[int, str]]]:
    """(version, address) of each instance's fixed IPs, from its cached network info."""
    cache = models.info_cache.InstanceInfoCache
    found: dict[str, list[tuple[int, str]]] = {}
    for uuid, network_info in s.execute(select(cache.instance_uuid, cache.network_info)
                                        .where(cache.instance_uuid.in_(uuids))):
        found[uuid] = [(ip["version"], ip["address"]) for vif in network_info or []
                       for subnet in vif["network"]["subnets"] for ip in subnet["ips"]]
    return found


def _with_addresses(s: Any, uuids: list[str], wanted: dict[int, str]) -> list[str]:
    """Nova's ip/ip6 filters: a fixed address of that version matching from its start."""
    patterns = {version: re.compile(p) for version, p in wanted.items()}
    addresses = _fixed_addresses(s, uuids)
    return [u for u in uuids if any(
        version in patterns and patterns[version].match(address)
        for version, address in addresses.get(u, []))]


def _page_rows(s: Any, filters: ServerFilters, sort: list[tuple[str, str]],
               limit: int | None, marker: str | None, shown: tuple[Any, ...] = ()
               ) -> list[Sequence[Any]]:
    """The page's rows in order: each its uuid, then the `shown` columns. Only SQL (the
    cost follows the page) unless a regular expression or an address filters or a
    marker meets a custom order: then every id is walked."""
    patterns = {c: re.compile(p) for c, p in filters.regex.items()}
    query = select(_I.uuid, *shown, *[getattr(_I, c) for c in patterns]).where(
        *_conditions(filters)).order_by(*_order(sort))
    if not patterns and not filters.addresses and (marker is None or not sort):
        if marker is not None:
            query = query.where(_marker_after(s, marker, filters))
        return list(s.execute(query.limit(limit)))
    rows = [row for row in s.execute(query) if _matches(row[1 + len(shown):], patterns)]
    if filters.addresses:
        kept = set(_with_addresses(s, [row[0] for row in rows], filters.addresses))
        rows = [row for row in rows if row[0] in kept]
    start = 0
    if marker is not None:
        uuids = [row[0] for row in rows]
        if marker not in uuids:
            raise exception.MarkerNotFound(marker=marker)
        start = uuids.index(marker) + 1
    return rows[start:start + limit if limit is not None else None]


def instance_list(filters: ServerFilters, sort: list[tuple[str, str]],
                  limit: int | None = None, marker: str | None = None
                  ) -> list[dict[str, Any]]:
    """One page of servers as views; a marker that is not in the list is MarkerNotFound."""
    with core_reader() as s:
        conn = s.connection()  # Core results: the session's ORM result layer cost more
        page = [row[0] for row in _page_rows(conn, filters, sort, limit, marker)]
        return _views(conn, page, filters)


def instance_names(filters: ServerFilters, sort: list[tuple[str, str]],
                   limit: int | None = None, marker: str | None = None
                   ) -> list[dict[str, Any]]:
    """One page of servers as `uuid` and `display_name` only: all the short index shows,
    read by the page's own query, without the views' five over every column, network
    info and volume (a client watching a boot polls this)."""
    with core_reader() as s:
        rows = _page_rows(s.connection(), filters, sort, limit, marker, (_I.display_name,))
        return [{"uuid": row[0], "display_name": row[1]} for row in rows]


def _views(s: Any, page: list[str], filters: ServerFilters) -> list[dict[str, Any]]:
    """The page's rows with their metadata, tags, cached network info and volumes, in
    five plain queries (the ORM's per-object cost dominated a 1,000-server page)."""
    result = s.execute(select(_I.__table__).where(_I.uuid.in_(page), *_conditions(filters)))
    columns = list(result.keys())  # once: a RowMapping rebuilds its keys per row
    rows = {r["uuid"]: r for r in (dict(zip(columns, row, strict=True)) for row in result)}
    volumes = block_devices.volumes_attached(s, rows)
    for uuid, row in rows.items():
        row["metadata"], row["tags"], row["network_info"] = {}, [], []
        row["volumes_attached"] = volumes.get(uuid, [])
    cache = models.info_cache.InstanceInfoCache
    for uuid, network_info in s.execute(select(cache.instance_uuid, cache.network_info)
                                        .where(cache.instance_uuid.in_(page))):
        if uuid in rows:
            rows[uuid]["network_info"] = list(network_info or [])
    meta = models.InstanceMetadata
    for uuid, key, value in s.execute(select(meta.instance_uuid, meta.key, meta.value)
                                      .where(meta.instance_uuid.in_(page),
                                             meta.deleted == 0).order_by(meta.id)):
        if uuid in rows:
            rows[uuid]["metadata"][key] = value
    for uuid, tag in s.execute(select(models.Tag.resource_id, models.Tag.tag)
                               .where(models.Tag.resource_id.in_(page))
                               .order_by(models.Tag.tag)):
        if uuid in rows:
            rows[uuid]["tags"].append(tag)
    return [rows[u] for u in page if u in rows]
