"""/v2.0/subnets: made on a network the caller owns (or any, for an admin)."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from novalite.api.faults import HTTPFault
from novalite.api.network import policies
from novalite.api.network.resource import Resource, network_target, scope
from novalite.api.request import ApiRequest
from novalite.db.models import network as m
from novalite.network import networks, records, subnets
from novalite.network.records import Record


def _target(s: Session, row: m.Subnet) -> dict[str, Any]:
    network = s.get(m.Network, row.network_id)
    return {"project_id": row.project_id,
            "network:project_id": network.project_id if network else None,
            **(policies.public(network) if network else {})}


def _create(s: Session, req: ApiRequest, values: dict[str, Any]) -> Record:
    if "cidr" not in values:
        raise HTTPFault(400, "Bad subnet request: a cidr must be specified (subnet pools "
                             "allocate no prefixes here).")
    network = networks.get(s, scope(req), values["network_id"])
    return subnets.create(s, network, values.pop("project_id"), values)


RESOURCE = Resource(
    name="subnet", collection="subnets", get=subnets.get,
    record=lambda s, row: records.subnet(row),
    list=lambda s, sc, req: subnets.list_records(s, sc), create=_create,
    update=lambda s, req, row, values: subnets.update(s, row, values),
    delete=lambda s, req, row: subnets.delete(s, row), target=_target,
    new_target=network_target)
