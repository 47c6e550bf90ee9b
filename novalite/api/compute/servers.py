"""Handlers of /servers."""

from __future__ import annotations

import ipaddress
import re
import secrets
import string

from novalite import exception, servicegroup
from novalite.api import policy
from novalite.api.compute.schemas import servers as schema
from novalite.api.compute.schemas import validate
from novalite.api.compute.views import links
from novalite.api.compute.views import servers as view
from novalite.api.faults import HTTPFault
from novalite.api.request import ApiRequest, ApiResponse
from novalite.compute.api import API
from novalite.db.api import actions, instances, server_groups, services
from novalite.objects.instance import Instance

RULE = "os_compute_api:servers:%s"


def _project(req: ApiRequest) -> str | None:
    """Admins find any project's server by id; everyone else only their own."""
    return None if req.ctx.is_admin else req.ctx.project_id


def get_instance(req: ApiRequest) -> Instance:
    """The server `{server_id}` names, or Nova's 404 if the caller cannot see it."""
    uuid = req.params["server_id"]
    try:
        return instances.instance_get(uuid, project_id=_project(req))
    except exception.InstanceNotFound:
        raise HTTPFault(404, f"Instance {uuid} could not be found.") from None


def _password(length: int = 12) -> str:
    """Nova answers a create with a generated admin password when none was given."""
    alphabet = string.ascii_letters + string.digits
    return "".join(secrets.choice(alphabet) for _ in range(length))


_TRUE = ("1", "t", "true", "on", "y", "yes")
_FALSE = ("0", "f", "false", "off", "n", "no")


def _bool(value: str | None) -> bool:
    return (value or "").strip().lower() in ("1", "true", "yes", "on")


def _destination(req: ApiRequest, server: dict) -> dict:
    """Where the caller asks the server to go: a zone, and (admins only) a forced host or
    node (`zone:host:node`) or from 2.74 a requested host/node the filters still judge."""
    zone, forced_host, forced_node = API.parse_availability_zone(
        server.get("availability_zone"))
    if forced_host or forced_node:
        policy.authorize(req.ctx, RULE % "create:forced_host")
    requested = None
    if server.get("host") or server.get("hypervisor_hostname"):
        policy.authorize(req.ctx, "compute:servers:create:requested_destination")
        requested = {"host": server.get("host"), "node": server.get("hypervisor_hostname")}
    return {"availability_zone": zone, "forced_host": forced_host,
            "forced_node": forced_node, "requested_destination": requested}


def _access_ips(server: dict) -> dict[str, str | None]:
    """Stored (and so shown) in their canonical form, as Nova's IP fields keep them."""
    return {column: str(ipaddress.ip_address(server[field])) if server.get(field) else None
            for field, column in (("accessIPv4", "access_ip_v4"),
                                  ("accessIPv6", "access_ip_v6"))}


def create(req: ApiRequest) -> ApiResponse:
    validate(schema.create_for(req.version), req.body)
    policy.authorize(req.ctx, RULE % "create")
    server = req.body["server"]
    hints = req.body.get("os:scheduler_hints") or req.body.get("OS-SCH-HNT:scheduler_hints")
    image_ref = server.get("imageRef") or next(
        (b.get("uuid") for b in server.get("block_device_mapping_v2", [])
         if b.get("source_type") == "image" and str(b.get("boot_index")) == "0"), None)
    if not image_ref:
        raise HTTPFault(400, "Missing imageRef attribute")
    try:
        uuids = API().create(
            req.ctx, name=server["name"], flavor_ref=str(server["flavorRef"]),
            image_ref=image_ref, min_count=int(server.get("min_count", 1)),
            max_count=int(server.get("max_count", server.get("min_count", 1))),
            metadata=server.get("metadata"), key_name=server.get("key_name"),
            user_data=server.get("user_data"), scheduler_hints=hints,
            description=server.get("description"), access_ips=_access_ips(server),
            **_destination(req, server))
    except exception.ComputeHostNotFound as exc:
        raise HTTPFault(400, exc.format_message()) from None
    if _bool(str(server.get("return_reservation_id", ""))):
        inst = instances.instance_get_view(uuids[0])
        return ApiResponse(202, {"reservation_id": inst["reservation_id"]})
    body = {"id": uuids[0], "links": links(req.base_url, "servers", uuids[0]),
            "OS-DCF:diskConfig": server.get("OS-DCF:diskConfig", "MANUAL"),
            "security_groups": server.get("security_groups") or [{"name": "default"}],
            "adminPass": server.get("adminPass") or _password()}
    return ApiResponse(202, {"server": body})


def _all_tenants(req: ApiRequest, listing: str) -> bool:
    """`all_tenants` (empty or a true word; an unknown word is a 400, as Nova's strict
    parse) asks for every project's servers, which needs its own rule; without it
    everyone, admins too, lists their own project's."""
    if "all_tenants" not in req.query:
        return False
    value = req.query["all_tenants"].strip().lower()
    if value and value not in _TRUE + _FALSE:
        raise HTTPFault(400, f"Invalid input received: Unrecognized value "
                             f"'{req.query['all_tenants']}', acceptable values are: "
                             + ", ".join(f"'{w}'" for w in sorted(_TRUE + _FALSE)))
    if value in _FALSE:
        return False
    policy.authorize(req.ctx, RULE % f"{listing}:get_all_tenants")
    return True


def _name_filter(req: ApiRequest) -> str | None:
    """A regular expression, as in Nova; one that does not compile is a 400."""
    name = req.query.get("name")
    try:
        re.compile(name or "")
    except re.error as exc:
        raise HTTPFault(400, f"Invalid input for query parameters name. Value: {name}. "
                             f"{exc}") from None
    return name


def _list(req: ApiRequest, listing: str) -> list[dict]:
    policy.authorize(req.ctx, RULE % listing)
    project = req.ctx.project_id
    if _all_tenants(req, listing):
        project = req.query.get("project_id") or req.query.get("tenant_id")
    deleted = _bool(req.query.get("deleted"))
    if deleted and not policy.check(req.ctx, RULE % "allow_all_filters"):
        deleted = False  # only admins may list deleted servers, as in Nova
    limit = req.query.get("limit")
    if limit is not None and not limit.isdigit():
        raise HTTPFault(400, f"Invalid input for query parameters limit. Value: {limit}.")
    status = req.query.get("status")
    vm_states = view.vm_states_for_status(status) if status else None
    if status and not vm_states and req.at_least("2.38"):
        raise HTTPFault(400, f"Invalid status value: {status}")
    return instances.instance_get_all_view(
        project_id=project, name=_name_filter(req), deleted=deleted,
        limit=int(limit) if limit is not None else None,
        vm_states=vm_states)


def index(req: ApiRequest) -> ApiResponse:
    rows = _list(req, "index")
    return ApiResponse(200, {"servers": [view.basic(i, req.base_url) for i in rows]})


def _host_statuses(rows: list[dict]) -> dict[str, str]:
    """Nova's host_status per host: UP, DOWN (forced down), MAINTENANCE (disabled), or
    UNKNOWN (no recent heartbeat)."""
    hosts = {r["host"] for r in rows if r["host"]}
    statuses = {}
    for service in services.service_get_all("novalite-compute"):
        if service.host in hosts:
            statuses[service.host] = (
                "DOWN" if service.forced_down else "MAINTENANCE" if service.disabled
                else "UP" if servicegroup.service_is_up(service) else "UNKNOWN")
    return statuses


def _options(req: ApiRequest, rows: list[dict], **extra) -> view.ViewOptions:
    admin = policy.check(req.ctx, "os_compute_api:os-extended-server-attributes")
    statuses = (_host_statuses(rows) if req.at_least("2.16")
                and policy.check(req.ctx, RULE % "show:host_status") else {})
    return view.ViewOptions(req.base_url, req.version, admin, statuses, **extra)


def detail(req: ApiRequest) -> ApiResponse:
    rows = _list(req, "detail")
    faults = actions.fault_get_latest([r["uuid"] for r in rows if r["vm_state"] == "error"])
    opts = _options(req, rows)
    return ApiResponse(200, {"servers": [view.detail(r, opts, faults.get(r["uuid"]))
                                         for r in rows]})


def show(req: ApiRequest) -> ApiResponse:
    uuid = req.params["server_id"]
    try:
        inst = instances.instance_get_view(uuid, project_id=_project(req))
    except exception.InstanceNotFound:
        raise HTTPFault(404, f"Instance {uuid} could not be found.") from None
    policy.authorize(req.ctx, RULE % "show", inst["project_id"])
    fault = actions.fault_get_latest([uuid]).get(uuid)
    groups = server_groups.group_uuids_of_instance(uuid) if req.at_least("2.71") else None
    opts = _options(req, [inst], server_groups=groups)
    return ApiResponse(200, {"server": view.detail(inst, opts, fault)})


def delete(req: ApiRequest) -> ApiResponse:
    instance = get_instance(req)
    policy.authorize(req.ctx, RULE % "delete", instance.project_id)
    API().delete(req.ctx, instance.uuid)
    return ApiResponse(204)
