"""What every list call takes, as Neutron reads it: filters on any attribute (repeated for
OR; `tags`, `tags-any`, `not-tags`, `not-tags-any`), `fields=`, `sort_key`/`sort_dir`,
and `limit`/`marker`/`page_reverse` pagination with `<collection>_links`."""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any
from urllib.parse import urlencode

from novalite.api.faults import HTTPFault
from novalite.api.network import attributes
from novalite.api.request import ApiRequest
from novalite.network import errors

CONTROL = {"fields", "sort_key", "sort_dir", "limit", "marker", "page_reverse"}
TAG_FILTERS = {"tags", "tags-any", "not-tags", "not-tags-any"}


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


def _tags(query: Any, record: dict) -> bool:
    have = set(record.get("tags") or [])
    for key in TAG_FILTERS:
        for raw in query.getlist(key):
            wanted = {t for t in raw.split(",") if t}
            ok = {"tags": wanted <= have, "tags-any": bool(wanted & have),
                  "not-tags": not wanted <= have,
                  "not-tags-any": not wanted & have}[key]
            if not ok:
                return False
    return True


def _matches(record: dict, key: str, values: list[str]) -> bool:
    value = record[key]
    if isinstance(value, list):
        return any(_text(v) in values for v in value)
    return _text(value) in values


def filters(req: ApiRequest, known: set[str], own: Collection[str] = (),
            resource: str = "") -> dict[str, list[str]]:
    """The attribute filters of the query, each value read as its attribute's type,
    refusing an attribute the resource lacks; `own` are those the resource's list
    applied itself."""
    found: dict[str, list[str]] = {}
    invalid = [key for key in req.query if key not in CONTROL | TAG_FILTERS
               and key not in own and key not in known]
    if invalid:
        raise HTTPFault(400, f"{invalid} is invalid attribute for filtering")
    for key in req.query:
        if key in CONTROL or key in TAG_FILTERS or key in own:
            continue
        found[key] = [attributes.filter_value(resource, key, v)
                      for v in req.query.getlist(key)]
    return found


def apply(req: ApiRequest, records: list[dict], collection: str) -> dict[str, Any]:
    """The list response body: filtered, sorted, paged, with only the asked fields."""
    known = set(records[0]) if records else set()
    known |= {"id", "name", "project_id", "tenant_id", "description", "status"}
    known |= set(_ALWAYS_KNOWN.get(collection, ()))
    wanted = filters(req, known, _FILTERED_BY_RESOURCE.get(collection, ()), collection[:-1])
    found = [r for r in records if _tags(req.query, r)
             and all(k in r and _matches(r, k, v) for k, v in wanted.items())]
    found = _sort(req, found, known)
    found, links = _page(req, found, collection)
    body: dict[str, Any] = {collection: [fields(req, r) for r in found]}
    if links:
        body[f"{collection}_links"] = links
    return body


# filters with a syntax of their own, applied by the resource's list (fixed_ips=ip_address=X
# matches a part of each entry: see novalite.api.network.ports)
_FILTERED_BY_RESOURCE = {"ports": ("fixed_ips",)}

# attributes a filter may name even when the list is empty
_ALWAYS_KNOWN = {
    "networks": ("router:external", "shared", "admin_state_up", "provider:network_type",
                 "provider:physical_network", "provider:segmentation_id", "mtu",
                 "is_default", "revision_number", "port_security_enabled", "dns_domain",
                 "availability_zone_hints", "availability_zones", "subnets",
                 "l2_adjacency", "qos_policy_id", "ipv4_address_scope",
                 "ipv6_address_scope", "created_at", "updated_at"),
    "subnets": ("network_id", "cidr", "ip_version", "gateway_ip", "enable_dhcp",
                "subnetpool_id", "ipv6_ra_mode", "ipv6_address_mode", "segment_id"),
    "ports": ("network_id", "device_id", "device_owner", "mac_address", "fixed_ips",
              "binding:host_id", "binding:vnic_type", "admin_state_up",
              "security_groups", "port_security_enabled"),
    "routers": ("admin_state_up",),
    "floatingips": ("floating_ip_address", "floating_network_id", "port_id",
                    "fixed_ip_address", "router_id"),
    "security_groups": ("stateful", "shared", "is_default"),
    "security_group_rules": ("security_group_id", "direction", "ethertype", "protocol",
                             "port_range_min", "port_range_max", "remote_group_id",
                             "remote_ip_prefix"),
    "subnetpools": ("ip_version", "shared", "is_default", "address_scope_id"),
}


def fields(req: ApiRequest, record: dict) -> dict:
    asked = [f for raw in req.query.getlist("fields") for f in raw.split(",") if f]
    if not asked:
        return record
    return {k: v for k, v in record.items() if k in asked}


def _sort_value(value: Any) -> tuple:
    return (value is None, _text(value) if not isinstance(value, int | float) else value)


def _sort_key(key: str) -> Callable[[dict[str, Any]], tuple[Any, ...]]:
    return lambda record: _sort_value(record.get(key))


def _sort(req: ApiRequest, records: list[dict], known: set[str]) -> list[dict]:
    """Neutron's sorting; a sort_dir left out is `asc` (Neutron asks for as many
    directions as keys, which novalite does not)."""
    keys = req.query.getlist("sort_key")
    dirs = req.query.getlist("sort_dir")
    if len(dirs) > len(keys):
        raise HTTPFault(400, "The number of sort_keys and sort_dirs must be same")
    absent = [key for key in keys if key not in known]
    if absent:
        raise HTTPFault(400, f"{absent} is invalid attribute for sort_keys")
    invalid = [d for d in dirs if d not in ("asc", "desc")]
    if invalid:
        raise HTTPFault(400, f"{invalid} is invalid value for sort_dirs, valid value is "
                             "'asc' and 'desc'")
    for key, direction in reversed(list(zip(keys, dirs + ["asc"] * (len(keys) - len(dirs)),
                                            strict=True))):
        records = sorted(records, key=_sort_key(key), reverse=direction == "desc")
    if not keys:
        records = sorted(records, key=lambda r: r.get("id") or "")
    return records


def _limit(req: ApiRequest) -> int | None:
    raw = req.query.get("limit")
    if raw is None:
        return None
    try:
        value = int(raw)
    except ValueError:
        value = -1
    if value < 0:
        raise errors.BadRequest(resource="limit", msg=f"Limit must be an integer 0 or "
                                                      f"greater and not '{raw}'")
    return value or None


def _page(req: ApiRequest, records: list[dict], collection: str
          ) -> tuple[list[dict], list[dict]]:
    limit = _limit(req)
    marker = req.query.get("marker")
    reverse = req.query.get("page_reverse", "false").lower() == "true"
    if limit is None and marker is None:
        return records, []
    ids = [r.get("id") for r in records]
    if reverse:
        end = ids.index(marker) if marker in ids else len(records)
        start = max(0, end - limit) if limit else 0
        page = records[start:end]
    else:
        start = ids.index(marker) + 1 if marker in ids else 0
        page = records[start:start + limit] if limit else records[start:]
    params = [(k, v) for k, v in req.query.multi_items()
              if k not in ("marker", "page_reverse")]
    path = f"{req.base_url}/v2.0/{collection.replace('_', '-')}"

    def href(marker_id: str, backwards: bool) -> str:
        extra = [("page_reverse", "True")] if backwards else []
        return f"{path}?{urlencode([*params, ('marker', marker_id), *extra])}"

    links = []
    if page:
        first, last = ids.index(page[0]["id"]), ids.index(page[-1]["id"])
        if last < len(records) - 1:
            links.append({"rel": "next", "href": href(page[-1]["id"], False)})
        if first > 0:
            links.append({"rel": "previous", "href": href(page[0]["id"], True)})
    return page, links
