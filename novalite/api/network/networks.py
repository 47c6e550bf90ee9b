"""/v2.0/networks: provider attributes and `router:external` are the admin's."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from novalite.api.network import attributes, policies
from novalite.api.network.resource import Resource
from novalite.api.request import ApiRequest
from novalite.db.models import network as m
from novalite.network import networks
from novalite.network.records import Record

PROVIDER = ("network_type", "physical_network", "segmentation_id")
# filters the database applies too, by the column each reads
SQL_FILTERS = {"id": "id", "name": "name", "status": "status", "project_id": "project_id",
               "tenant_id": "project_id", "shared": "shared", "router:external": "external",
               "admin_state_up": "admin_state_up"}
BOOLEANS = {"true": True, "false": False}


def _target(s: Session, row: m.Network) -> dict[str, Any]:
    """The owner, and whether it is shared or external (readable by all: see the
    get_network rule)."""
    return {"project_id": row.project_id, "network:project_id": row.project_id,
            **policies.public(row)}


def _list(s: Session, sc: Any, req: ApiRequest) -> list[Record]:
    """Narrowed in SQL by the filters on plain columns, as the API reads their values
    (listing.apply still checks each record): a boot that names no network lists the
    project's unshared and the shared networks, and would read every network of the
    cloud for an admin, with their subnets and segments."""
    equals = []
    for key in req.query:
        if key not in SQL_FILTERS:
            continue
        values: list[Any] = [attributes.filter_value("network", key, v)
                             for v in req.query.getlist(key)]
        attr = attributes.SPECS["network"].get(key)
        if attr is not None and attr.kind == "bool":
            if not all(v in BOOLEANS for v in values):
                continue  # what the records' check refuses or matches as text
            values = [BOOLEANS[v] for v in values]
        equals.append((SQL_FILTERS[key], values))
    return networks.list_records(s, sc, equals)


def _create(s: Session, req: ApiRequest, values: dict[str, Any]) -> Record:
    provider = {k: values.pop(f"provider:{k}") for k in PROVIDER if f"provider:{k}" in values}
    external = values.pop("router:external", False)
    return networks.create(s, values.pop("project_id"), values, provider, external)


def _update(s: Session, req: ApiRequest, row: m.Network, values: dict[str, Any]) -> Record:
    return networks.update(s, row, values, values.pop("router:external", None))


def _delete(s: Session, req: ApiRequest, row: m.Network) -> None:
    networks.delete(s, row)


RESOURCE = Resource(
    name="network", collection="networks",
    get=networks.get, record=networks.record, list=_list,
    create=_create, update=_update, delete=_delete, target=_target)

