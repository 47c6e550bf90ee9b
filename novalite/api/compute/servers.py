"""Handlers of /servers."""

from __future__ import annotations

import ipaddress
import secrets
import string
from collections.abc import Callable

from oslo_utils import uuidutils

from novalite import exception, strutils
from novalite.api import policy
from novalite.api.compute import paging, server_filters
from novalite.api.compute.schemas import servers as schema
from novalite.api.compute.schemas import validate
from novalite.api.compute.views import links
from novalite.api.compute.views import servers as view
from novalite.api.faults import HTTPFault
from novalite.api.request import ApiRequest, ApiResponse
from novalite.compute import boot_volumes, multiattach, neutron
from novalite.compute.api import API
from novalite.db.api import (
    actions,
    instance_list,
    instances,
    request_specs,
    server_groups,
    services,
)
from novalite.objects.instance import Instance
from novalite.service import liveness

RULE = "os_compute_api:servers:%s"


def _project(req: ApiRequest) -> str | None:
    """Admins find any project's server by id; everyone else only their own."""
    return None if req.ctx.is_admin else req.ctx.project_id


def get_instance(req: ApiRequest) -> Instance:
    """The server `{server_id}` names, or Nova's 404 if the caller cannot see it."""
    return find_instance(req, req.params["server_id"])


def find_instance(req: ApiRequest, uuid: str) -> Instance:
    """The server `uuid`, or Nova's 404 if the caller cannot see it."""
    try:
        return instances.instance_get(uuid, project_id=_project(req))
    except exception.InstanceNotFound:
        raise HTTPFault(404, f"Instance {uuid} could not be found.") from None


def new_password(length: int = 12) -> str:
    """Nova answers a create with a generated admin password when none was given."""
    alphabet = string.ascii_letters + string.digits
    return "".join(secrets.choice(alphabet) for _ in range(length))


def _bool(value: str | None) -> bool:
    return strutils.parse_bool(value or "") is True


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


def access_ips(server: dict) -> dict[str, str | None]:
    """Stored (and so shown) in their canonical form, as Nova's IP fields keep them."""
    return {column: str(ipaddress.ip_address(server[field])) if server.get(field) else None
            for field, column in (("accessIPv4", "access_ip_v4"),
                                  ("accessIPv6", "access_ip_v6"))}


def _requested_networks(server: dict) -> neutron.Requested:
    """`networks` as Nova reads it: "auto"/"none", or entries of a network (with an
    optional fixed IP) or a port; absent before 2.37 means the project's network."""
    found = server.get("networks")
    if found is None or isinstance(found, str):
        return found
    requests = []
    for entry in found:
        port, network = entry.get("port"), entry.get("uuid")
        if port and entry.get("fixed_ip"):
            raise HTTPFault(400, f"Specified Fixed IP '{entry['fixed_ip']}' cannot be used "
                                 f"with port '{port}': the two cannot be specified together.")
        if port:
            if not uuidutils.is_uuid_like(port):
                raise HTTPFault(400, f"Bad port format: port uuid is not in proper format "
                                     f"({port})")
        elif not network or not uuidutils.is_uuid_like(network):
            raise HTTPFault(400, f"Bad networks format: network uuid is not in proper "
                                 f"format ({network})")
        requests.append(neutron.NetworkRequest(network_id=None if port else network,
                                               port_id=port, address=entry.get("fixed_ip"),
                                               tag=entry.get("tag")))
    return requests


def create(req: ApiRequest) -> ApiResponse:
    validate(schema.create_for(req.version), req.body)
    policy.authorize(req.ctx, RULE % "create")
    server = req.body["server"]
    hints = req.body.get("os:scheduler_hints") or req.body.get("OS-SCH-HNT:scheduler_hints")
    entries = server.get("block_device_mapping_v2", [])
    devices = boot_volumes.from_api(entries)
    image_ref = server.get("imageRef") or boot_volumes.image_root(entries) or ""
    if not image_ref and not devices:
        raise HTTPFault(400, "Missing imageRef attribute")
    try:
        uuids = API().create(
            req.ctx, name=server["name"], flavor_ref=str(server["flavorRef"]),
            image_ref=image_ref, min_count=int(server.get("min_count", 1)),
            max_count=int(server.get("max_count", server.get("min_count", 1))),
            metadata=server.get("metadata"), key_name=server.get("key_name"),
            user_data=server.get("user_data"), scheduler_hints=hints,
            description=server.get("description"), access_ips=access_ips(server),
            tags=server.get("tags"),
            requested_networks=_requested_networks(server),
            security_groups=[g["name"] for g in server.get("security_groups", [])
                             if g.get("name")] or None,
            hostname=server.get("hostname"),
            config_drive=_bool(str(server.get("config_drive", ""))),
            block_device_mapping=devices,
            supports_multiattach=req.at_least(multiattach.MICROVERSION),
            **_destination(req, server))
    except exception.ComputeHostNotFound as exc:
        raise HTTPFault(400, exc.format_message()) from None
    if _bool(str(server.get("return_reservation_id", ""))):
        inst = instances.instance_get_view(uuids[0])
        return ApiResponse(202, {"reservation_id": inst["reservation_id"]})
    body = {"id": uuids[0], "links": links(req.base_url, "servers", uuids[0]),
            "OS-DCF:diskConfig": server.get("OS-DCF:diskConfig", "MANUAL"),
            "security_groups": server.get("security_groups") or [{"name": "default"}],
            "adminPass": server.get("adminPass") or new_password()}
    return ApiResponse(202, {"server": body})


def _all_tenants(req: ApiRequest, listing: str) -> bool:
    """`all_tenants` (empty or a true word; an unknown word is a 400, as Nova's strict
    parse) asks for every project's servers, which needs its own rule; without it
    everyone, admins too, lists their own project's."""
    if "all_tenants" not in req.query:
        return False
    value = req.query["all_tenants"]
    if value.strip() and strutils.parse_bool(value) is None:
        raise HTTPFault(400, f"Invalid input received: Unrecognized value "
                             f"'{value}', acceptable values are: "
                             + ", ".join(f"'{w}'" for w in sorted(strutils.WORDS)))
    if strutils.parse_bool(value) is False:
        return False
    policy.authorize(req.ctx, RULE % f"{listing}:get_all_tenants")
    return True


def _list(req: ApiRequest, listing: str,
          lister: Callable[..., list[dict]] = instance_list.instance_list) -> list[dict]:
    """The page of servers `lister` reads (the full views, or the short index's names)."""
    policy.authorize(req.ctx, RULE % listing)
    params = server_filters.usable_params(req)
    project = req.ctx.project_id
    if _all_tenants(req, listing):
        named = params.get("project_id") or params.get("tenant_id")
        project = named[-1] if named else None
    filters = server_filters.filters(req, params, project)
    sort = server_filters.sort(req, params)
    limit, marker = paging.limit_and_marker(req)
    try:
        return lister(filters, sort, limit, marker)
    except exception.MarkerNotFound:
        raise HTTPFault(400, f"marker [{marker}] not found") from None


def _page(req: ApiRequest, collection: str, servers: list[dict], rows: list[dict]) -> dict:
    """The servers, and a `servers_links` next link when the page came back full."""
    body: dict = {"servers": servers}
    links = paging.next_links(req, collection, [{"id": r["uuid"]} for r in rows], "id")
    if links:
        body["servers_links"] = links
    return body


def index(req: ApiRequest) -> ApiResponse:
    rows = _list(req, "index", instance_list.instance_names)
    return ApiResponse(200, _page(req, "servers", [view.basic(i, req.base_url) for i in rows],
                                  rows))


def _host_statuses(rows: list[dict]) -> dict[str, str]:
    """Nova's host_status per host: UP, DOWN (forced down), MAINTENANCE (disabled), or
    UNKNOWN (no recent heartbeat)."""
    statuses = {}
    for service in services.service_get_by_hosts((r["host"] for r in rows if r["host"]),
                                                 "novalite-compute"):
        statuses[service.host] = (
            "DOWN" if service.forced_down else "MAINTENANCE" if service.disabled
            else "UP" if liveness.service_is_up(service) else "UNKNOWN")
    return statuses


def _options(req: ApiRequest, rows: list[dict], **extra) -> view.ViewOptions:
    admin = policy.check(req.ctx, "os_compute_api:os-extended-server-attributes")
    statuses = (_host_statuses(rows) if req.at_least("2.16")
                and policy.check(req.ctx, RULE % "show:host_status") else {})
    specs = (request_specs.request_specs_get([r["uuid"] for r in rows])
             if req.at_least("2.96") else {})
    return view.ViewOptions(req.base_url, req.version, admin, statuses, specs=specs,
                            **extra)


def detail(req: ApiRequest) -> ApiResponse:
    rows = _list(req, "detail")
    faults = actions.fault_get_latest([r["uuid"] for r in rows if r["vm_state"] == "error"])
    opts = _options(req, rows)
    return ApiResponse(200, _page(req, "servers/detail",
                                        [view.detail(r, opts, faults.get(r["uuid"]))
                                         for r in rows], rows))


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


_UPDATABLE = {"name": "display_name", "description": "display_description",
              "hostname": "hostname"}


def update(req: ApiRequest) -> ApiResponse:
    """Rename, describe (2.19), re-address (access IPs) or re-hostname (2.90) a server;
    the answer is the server without the extension attributes, as Nova's before 2.75."""
    validate(schema.update_for(req.version), req.body)
    instance = get_instance(req)
    policy.authorize(req.ctx, RULE % "update", instance.project_id)
    server = req.body["server"]
    values = {column: server[field] for field, column in _UPDATABLE.items()
              if field in server}
    values.update({column: value for column, value in access_ips(server).items()
                   if value is not None})
    if values:
        instances.instance_update(instance.uuid, values)
    return ApiResponse(200, {"server": changed_view(req, instance.uuid)})


def changed_view(req: ApiRequest, uuid: str) -> dict:
    """The server as an update or a rebuild answers it: without the extension
    attributes before 2.75, as Nova's."""
    inst = instances.instance_get_view(uuid)
    fault = actions.fault_get_latest([uuid]).get(uuid)
    groups = server_groups.group_uuids_of_instance(uuid) if req.at_least("2.71") else None
    opts = _options(req, [inst], extensions=False, server_groups=groups)
    return view.detail(inst, opts, fault)


def delete(req: ApiRequest) -> ApiResponse:
    instance = get_instance(req)
    policy.authorize(req.ctx, RULE % "delete", instance.project_id)
    API().delete(req.ctx, instance)
    return ApiResponse(204)
