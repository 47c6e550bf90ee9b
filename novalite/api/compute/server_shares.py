"""Handlers of /servers/{id}/shares (2.97): Manila shares attached to a server, listed,
shown, attached and detached.

novalite has no shared file system service, so no share is ever attached: an attach
goes through every check Nova makes before it asks Manila, in Nova's order and with its
texts (novalite/compute/shares_api.py), and then fails as Nova's does without Manila;
the list and show read the server's share mappings, empty unless an operator put one
there. Nova's query schemas take no parameters, so any is a 400.
"""

from __future__ import annotations

from novalite import exception
from novalite.api import policy
from novalite.api.compute import query
from novalite.api.compute.schemas import server_shares as schema
from novalite.api.compute.schemas import validate
from novalite.api.compute.servers import get_instance
from novalite.api.compute.views import server_shares as view
from novalite.api.faults import HTTPFault
from novalite.api.request import ApiRequest, ApiResponse
from novalite.compute import shares_api
from novalite.db.api import share_mappings
from novalite.objects.instance import Instance

RULE = "os_compute_api:os-server-shares:%s"
SINCE = "2.97"


def _served(req: ApiRequest) -> None:
    if not req.at_least(SINCE):
        raise HTTPFault(404, "The resource could not be found.")


def _target(req: ApiRequest, rule: str) -> Instance:
    instance = get_instance(req)
    policy.authorize(req.ctx, RULE % rule, instance.project_id)
    return instance


def index(req: ApiRequest) -> ApiResponse:
    _served(req)
    query.only(req, ())
    instance = _target(req, "index")
    mappings = share_mappings.share_mappings_get(instance.uuid)
    return ApiResponse(200, {"shares": [view.listed(m) for m in mappings]})


def create(req: ApiRequest) -> ApiResponse:
    _served(req)
    validate(schema.create, req.body)
    instance = _target(req, "create")
    shares_api.attach(req.ctx, instance, req.body["share"]["share_id"])


def show(req: ApiRequest) -> ApiResponse:
    _served(req)
    query.only(req, ())
    instance = _target(req, "show")
    share_id = req.params["share_id"]
    mapping = share_mappings.share_mapping_get(instance.uuid, share_id)
    if mapping is None:
        raise exception.ShareNotFound(share_id=share_id)
    return ApiResponse(200, {"share": view.shown(mapping, req.ctx.is_admin)})


def delete(req: ApiRequest) -> ApiResponse:
    """Nova marks the mapping detaching and has the compute unmount the share and give
    back its access in Manila; with no Manila, no access was ever granted and no compute
    mounted it, so the mapping simply goes."""
    _served(req)
    instance = _target(req, "delete")
    shares_api.check_state(instance, shares_api.DETACH)
    share_id = req.params["share_id"]
    if not share_mappings.share_mapping_destroy(instance.uuid, share_id):
        raise exception.ShareNotFound(share_id=share_id)
    return ApiResponse(200)
