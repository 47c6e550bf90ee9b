"""Handlers of /os-keypairs: a user's key pairs; admins may act for another user (2.10).

Nova's rules read "admin, or the key pairs' own user": the owner half is checked here,
the admin half is the policy rule (which is admin-only by default).
"""

from __future__ import annotations

from novalite import exception
from novalite.api import policy
from novalite.api.compute import paging, query
from novalite.api.compute.schemas import keypairs as schema
from novalite.api.compute.schemas import validate
from novalite.api.compute.views import keypairs as view
from novalite.api.faults import HTTPFault
from novalite.api.request import ApiRequest, ApiResponse
from novalite.compute import keypairs
from novalite.db.api import keypairs as db


def _user(req: ApiRequest, action: str, requested: str | None = None) -> str:
    """Whose key pairs the request is about, once the caller may act for them."""
    user_id = requested or req.ctx.require_user_id()
    if user_id != req.ctx.user_id:
        policy.authorize(req.ctx, f"os_compute_api:os-keypairs:{action}")
    return user_id


def _query_user(req: ApiRequest, *allowed: str) -> str | None:
    query.only_from(req, "2.75", ("user_id", *allowed))
    return req.query.get("user_id") if req.at_least("2.10") else None


def create(req: ApiRequest) -> ApiResponse:
    """Import the given public key, or generate a pair and answer its private key once.
    200 at 2.1, 201 from 2.2."""
    validate(schema.create_for(req.version), req.body)
    body = req.body["keypair"]
    user_id = _user(req, "create", body.get("user_id"))
    name, key_type = body["name"].strip(), body.get("type", keypairs.SSH)
    if "public_key" in body:
        keypair = keypairs.import_key_pair(user_id, name, body["public_key"], key_type,
                                           req.ctx.project_id)
    else:
        keypair = keypairs.create_key_pair(user_id, name, key_type, req.ctx.project_id)
    return ApiResponse(201 if req.at_least("2.2") else 200, view.create(keypair, req.version))


def index(req: ApiRequest) -> ApiResponse:
    """The user's key pairs by name; paged from 2.35."""
    user_id = _user(req, "index", _query_user(req, "limit", "marker"))
    limit, marker = paging.limit_and_marker(req) if req.at_least("2.35") else (None, None)
    try:
        rows = db.key_pair_get_all_by_user(user_id, limit=limit, marker=marker)
    except exception.MarkerNotFound as exc:
        raise HTTPFault(400, exc.format_message()) from None
    body: dict = {"keypairs": [view.index_item(r, req.version) for r in rows]}
    links = paging.next_links(req, "os-keypairs", rows, "name") if req.at_least("2.35") \
        else []
    if links:
        body["keypairs_links"] = links
    return ApiResponse(200, body)


def show(req: ApiRequest) -> ApiResponse:
    user_id = _user(req, "show", _query_user(req))
    return ApiResponse(200, view.show(db.key_pair_get(user_id, req.params["name"]),
                                      req.version))


def delete(req: ApiRequest) -> ApiResponse:
    """202 at 2.1, 204 from 2.2."""
    user_id = _user(req, "delete", _query_user(req))
    keypairs.delete_key_pair(user_id, req.params["name"])
    return ApiResponse(204 if req.at_least("2.2") else 202)
