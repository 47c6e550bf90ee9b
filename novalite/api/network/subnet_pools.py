"""/v2.0/subnetpools: listed and shown (subnets name their CIDR; no pool allocates)."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from novalite.api.network import listing
from novalite.api.network.resource import authorize, scope
from novalite.api.request import ApiRequest, ApiResponse
from novalite.db.models import network as m
from novalite.network import errors, records, transaction
from novalite.network.records import Record
from novalite.network.scope import Scope


def _visible(s: Session, sc: Scope) -> list[Record]:
    query = select(m.SubnetPool)
    if not sc.is_admin:
        query = query.where((m.SubnetPool.project_id == sc.project_id) | m.SubnetPool.shared)
    return [records.subnet_pool(r) for r in s.scalars(query)]


def index(req: ApiRequest) -> ApiResponse:
    authorize(req, "get_subnetpool", {})
    found = transaction.read(lambda s: _visible(s, scope(req)))
    return ApiResponse(200, listing.apply(req, found, "subnetpools"))


def show(req: ApiRequest) -> ApiResponse:
    authorize(req, "get_subnetpool", {})
    found = transaction.read(lambda s: _visible(s, scope(req)))
    for pool in found:
        if pool["id"] == req.params["id"]:
            return ApiResponse(200, {"subnetpool": listing.fields(req, pool)})
    raise errors.SubnetPoolNotFound(subnetpool_id=req.params["id"])
