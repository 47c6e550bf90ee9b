"""/v2.0/ports: Nova creates, binds and deletes these; the `binding:*` attributes are
the admin's (a compute's service user), as in Neutron."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from novalite.api.faults import HTTPFault
from novalite.api.network.resource import Resource, authorize, network_target, scope
from novalite.api.request import ApiRequest, ApiResponse
from novalite.db.models import network as m
from novalite.network import networks, ports, transaction
from novalite.network.records import Record

# filters the database applies (others are applied to the records)
SQL_FILTERS = {"id": "id", "network_id": "network_id", "device_id": "device_id",
               "device_owner": "device_owner", "mac_address": "mac_address",
               "project_id": "project_id", "tenant_id": "project_id",
               "binding:host_id": "binding_host_id", "status": "status"}


def _target(s: Session, row: m.Port) -> dict[str, Any]:
    network = s.get(m.Network, row.network_id)
    return {"project_id": row.project_id,
            "network:project_id": network.project_id if network else None}


def _fixed_ip_filter(req: ApiRequest, found: list[Record]) -> list[Record]:
    """`fixed_ips=ip_address=X` / `fixed_ips=subnet_id=Y`, as Nova and the CLI ask."""
    for raw in req.query.getlist("fixed_ips"):
        key, _, value = raw.partition("=")
        if key not in ("ip_address", "subnet_id", "ip_address_substr"):
            raise HTTPFault(400, f"Invalid fixed_ips filter {raw}")
        if key == "ip_address_substr":
            found = [p for p in found if any(value in ip["ip_address"]
                                             for ip in p["fixed_ips"])]
        else:
            found = [p for p in found if any(ip[key] == value for ip in p["fixed_ips"])]
    return found


def _list(s: Session, sc: Any, req: ApiRequest) -> list[Record]:
    equals = {SQL_FILTERS[k]: req.query.getlist(k) for k in req.query if k in SQL_FILTERS}
    return _fixed_ip_filter(req, ports.list_records(s, sc, equals))


def _create(s: Session, req: ApiRequest, values: dict[str, Any]) -> Record:
    network = networks.brief(s, scope(req), values["network_id"])
    return ports.create(s, scope(req), network, values.pop("project_id"), values)


def _update(s: Session, req: ApiRequest, row: m.Port, values: dict[str, Any]) -> Record:
    return ports.update(s, scope(req), row, values)


RESOURCE = Resource(
    name="port", collection="ports", get=ports.get, record=ports.record, list=_list,
    create=_create, update=_update, delete=lambda s, req, row: ports.delete(s, row),
    target=_target, new_target=network_target)


def devices_up(req: ApiRequest) -> ApiResponse:
    """`POST /v2.0/hosts/{host}/devices_up` {"devices": [port ids]}: a host's agent says
    it wired these ports (what Neutron's agents tell its server over RPC, which
    novalite's computes reach over HTTP only). The service user's alone."""
    authorize(req, "update_device_list", {})
    body = req.body
    devices = body.get("devices") if isinstance(body, dict) else None
    if not isinstance(devices, list) or not all(isinstance(d, str) for d in devices):
        raise HTTPFault(400, "Invalid input for devices. Reason: not a list of port ids.")
    up, failed = transaction.write(
        lambda s: ports.devices_up(s, req.params["host"], devices))
    return ApiResponse(200, {"devices_up": up, "failed_devices_up": failed})
