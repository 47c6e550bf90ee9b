"""The query of GET /servers[/detail] turned into filters, sort keys and a page, as
Nova reads it.

Nova's query schema accepts its list of names; one outside it is a 400 here (Nova
ignores it, which would let a misspelt filter silently list everything). Filters a
non-admin may not use are dropped, as Nova drops them. `ip` and `ip6` match the start
of one of the servers' fixed addresses of that version, as Nova's do.
"""

from __future__ import annotations

import re

from novalite import exception, strutils
from novalite.api import policy
from novalite.api.compute import query
from novalite.api.compute.views import servers as view
from novalite.api.faults import HTTPFault
from novalite.api.request import ApiRequest
from novalite.db.api import flavors
from novalite.db.api.instance_list import ServerFilters

# query name -> instances column, matched exactly
_EXACT = {"user_id": "user_id", "image": "image_ref", "image_ref": "image_ref",
          "vm_state": "vm_state", "task_state": "task_state", "host": "host",
          "uuid": "uuid", "launch_index": "launch_index"}
# query name -> instances column, matched as a regular expression
_REGEX = {"name": "display_name", "display_name": "display_name",
          "description": "display_description",
          "display_description": "display_description", "hostname": "hostname",
          "key_name": "key_name", "node": "node", "reservation_id": "reservation_id",
          "availability_zone": "availability_zone", "config_drive": "config_drive",
          "access_ip_v4": "access_ip_v4", "access_ip_v6": "access_ip_v6",
          "locked_by": "locked_by", "progress": "progress", "power_state": "power_state",
          "launched_at": "launched_at", "terminated_at": "terminated_at",
          "created_at": "created_at"}
# columns Nova has and novalite never sets: a filter on them matches no server
_NEVER_SET = ("kernel_id", "ramdisk_id", "root_device_name", "auto_disk_config")
_ADDRESSES = ("ip", "ip6")
_TAGS = ("tags", "tags-any", "not-tags", "not-tags-any")
_OTHER = ("project_id", "tenant_id", "flavor", "status", "changes-since", "all_tenants",
          "deleted", "soft_deleted", "locked", "sort_key", "sort_dir", "limit", "marker",
          "changes-before")
_NON_ADMIN = ("reservation_id", "name", "status", "image", "flavor", "ip", "changes-since",
              "all_tenants")
_NON_ADMIN_FROM_2_83 = ("availability_zone", "config_drive", "key_name", "created_at",
                       "launched_at", "terminated_at", "power_state", "task_state",
                       "vm_state", "progress", "user_id")
SORT_KEYS = ("access_ip_v4", "access_ip_v6", "availability_zone", "config_drive",
             "created_at", "display_description", "display_name", "host", "hostname",
             "image_ref", "instance_type_id", "key_name", "launch_index", "launched_at",
             "locked_by", "node", "power_state", "progress", "project_id", "task_state",
             "terminated_at", "updated_at", "user_id", "uuid", "vm_state")
# accepted, but not sortable in Nova (dropped with their direction)
_IGNORED_SORT_KEYS = ("architecture", "cell_name", "cleaned", "default_ephemeral_device",
                      "default_swap_device", "deleted", "deleted_at", "disable_terminate",
                      "ephemeral_gb", "ephemeral_key_uuid", "id", "key_data",
                      "launched_on", "locked", "memory_mb", "os_type", "reservation_id",
                      "root_gb", "shutdown_terminate", "user_data", "vcpus", "vm_mode")
# Nova's sort keys whose columns novalite lacks: every server has the same (empty) value
_CONSTANT_SORT_KEYS = ("auto_disk_config", "kernel_id", "ramdisk_id", "root_device_name")


def _allowed_non_admin(req: ApiRequest) -> set[str]:
    allowed = set(_NON_ADMIN) | {"sort_key", "sort_dir", "limit", "marker"}
    for version, names in (("2.5", ("ip6",)), ("2.26", _TAGS), ("2.66", ("changes-before",)),
                           ("2.73", ("locked",)), ("2.83", _NON_ADMIN_FROM_2_83)):
        if req.at_least(version):
            allowed |= set(names)
    return allowed


def _known(req: ApiRequest) -> set[str]:
    known = {*_EXACT, *_REGEX, *_NEVER_SET, *_ADDRESSES, *_OTHER}
    return known | set(_TAGS) if req.at_least("2.26") else known


def _bool(name: str, value: str) -> bool:
    parsed = strutils.parse_bool(value)
    if parsed is None:
        raise HTTPFault(400, f"Invalid input received: Unrecognized value '{value}', "
                             "acceptable values are: " +
                             ", ".join(f"'{w}'" for w in sorted(strutils.WORDS)))
    return parsed


def usable_params(req: ApiRequest) -> dict[str, list[str]]:
    """The query's parameters the caller may use (each with all its values)."""
    for name in req.query:
        if name not in _known(req):
            raise HTTPFault(400, f"Invalid filter field: {name}.")
    if policy.check(req.ctx, "os_compute_api:servers:allow_all_filters"):
        return {name: req.query.getlist(name) for name in req.query}
    allowed = _allowed_non_admin(req)
    return {name: req.query.getlist(name) for name in req.query if name in allowed}


def _status(params: dict[str, list[str]], req: ApiRequest, f: ServerFilters) -> None:
    if "status" not in params:
        return
    states = [vm for status in params["status"] for vm in view.vm_states_for_status(status)]
    if not states:
        if req.at_least("2.38"):
            raise HTTPFault(400, f"Invalid status value: {params['status'][-1]}")
        f.matches_nothing = True
    f.exact["vm_state"] = states
    if "deleted" in states:
        if not req.ctx.is_admin:
            raise HTTPFault(403, "Only administrators may list deleted instances")
        f.deleted = True


def _flavor(params: dict[str, list[str]], f: ServerFilters) -> None:
    if "flavor" not in params:
        return
    try:
        f.exact["instance_type_id"] = [flavors.flavor_get_by_flavorid(params["flavor"][-1]).id]
    except exception.FlavorNotFound:
        f.matches_nothing = True  # Nova lists nothing for an unknown flavor


def _times(params: dict[str, list[str]], req: ApiRequest, f: ServerFilters) -> None:
    if "changes-since" in params or "changes-before" in params:
        f.changes_since, f.changes_before = query.since_and_before(req)
        f.deleted = None  # a change may be a deletion


def filters(req: ApiRequest, params: dict[str, list[str]], project_id: str | None
            ) -> ServerFilters:
    f = ServerFilters()
    if project_id is not None:
        f.exact["project_id"] = [project_id]
    for name, column in _EXACT.items():
        if name in params:
            f.exact[column] = [params[name][-1]]
    for name, column in _REGEX.items():
        if name in params:
            f.regex[column] = _regex(name, params[name][-1])
    if any(n in params for n in _NEVER_SET):
        f.matches_nothing = True
    for version, name in ((4, "ip"), (6, "ip6")):
        if name in params:
            f.addresses[version] = _regex(name, params[name][-1])
    _status(params, req, f)
    _flavor(params, f)
    _times(params, req, f)
    if "deleted" in params:
        f.deleted = _bool("deleted", params["deleted"][-1])
    if "soft_deleted" in params:
        f.soft_deleted = _bool("soft_deleted", params["soft_deleted"][-1])
    if "locked" in params:
        f.exact["locked"] = [_bool("locked", params["locked"][-1])]
    for name in _TAGS:
        if name in params:
            setattr(f, name.replace("-", "_"), params[name][-1].split(","))
    return f


def _regex(name: str, value: str) -> str:
    try:
        re.compile(value)
    except re.error as exc:
        raise HTTPFault(400, f"Invalid input for query parameters {name}. Value: {value}. "
                             f"{exc}") from None
    return value


def sort(req: ApiRequest, params: dict[str, list[str]]) -> list[tuple[str, str]]:
    """(column, direction) pairs; a missing direction follows the first one given."""
    keys, dirs = params.get("sort_key", []), params.get("sort_dir", [])
    if len(dirs) > max(len(keys), 1):
        raise HTTPFault(400, "Invalid input received: Sort direction size exceeds sort key "
                             "size")
    for direction in dirs:
        if direction not in ("asc", "desc"):
            raise HTTPFault(400, "Invalid input received: Unknown sort direction, must be "
                                 "one of: asc, desc")
    default = dirs[0] if dirs else "desc"
    pairs = []
    for index, key in enumerate(keys):
        if key not in SORT_KEYS + _IGNORED_SORT_KEYS + _CONSTANT_SORT_KEYS:
            raise HTTPFault(400, f"Invalid input for query parameters sort_key. Value: "
                                 f"{key}. '{key}' is not one of the valid sort keys")
        if key in ("host", "node") and not req.ctx.is_admin:
            raise HTTPFault(403, f"Only administrators can sort servers by {key}")
        if key in SORT_KEYS or (key == "locked" and req.at_least("2.73")):
            pairs.append((key, dirs[index] if index < len(dirs) else default))
    return pairs
