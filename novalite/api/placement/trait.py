"""/traits, /traits/{name} and /resource_providers/{uuid}/traits (1.6)."""

from __future__ import annotations

import re

from novalite.api.placement import common
from novalite.api.placement.errors import error
from novalite.api.placement.schemas import trait as schema
from novalite.api.request import ApiRequest, ApiResponse
from novalite.db import session
from novalite.placement import errors, trait
from novalite.placement import resource_provider as rp

_CUSTOM = re.compile(r"^CUSTOM_[A-Z0-9_]+$")


def _filters(params: dict[str, str]) -> dict:
    filters: dict = {}
    name = params.get("name")
    if name is not None:
        if name.startswith("in:"):
            filters["name_in"] = name[3:].split(",")
        elif name.startswith("startswith:"):
            filters["starts_with"] = name[len("startswith:"):]
        else:
            raise error(400, "Badly formatted name parameter. Expected name query string "
                             "parameter in form: ?name=[in|startswith]:[name1,name2|prefix]. "
                             f"Got: \"{name}\"")
    if "associated" in params:
        if params["associated"] not in ("true", "false"):
            raise error(400, 'The query parameter "associated" only accepts "true" or '
                             '"false"')
        filters["associated"] = params["associated"] == "true"
    return filters


@common.handler("placement:traits:list", since="1.6")
def index(req: ApiRequest) -> ApiResponse:
    filters = _filters(common.query(req, schema.QUERY))
    with session.reader() as s:
        names = trait.list_traits(s, **filters)
    return common.cached(req, ApiResponse(200, {"traits": names}))


@common.handler("placement:traits:show", since="1.6")
def show(req: ApiRequest) -> ApiResponse:
    name = req.params["name"]
    with session.reader() as s:
        row = trait.find(s, name)
    if row is None:
        raise error(404, f"No such trait(s): {name}.")
    return common.cached(req, ApiResponse(204), row.updated)


@common.handler("placement:traits:update", since="1.6")
def update(req: ApiRequest) -> ApiResponse:
    name = req.params["name"]
    if not _CUSTOM.match(name) or len(name) > 255:
        raise error(400, 'The trait is invalid. A valid trait must be no longer than 255 '
                         'characters, start with the prefix "CUSTOM_" and use following '
                         'characters: "A"-"Z", "0"-"9" and "_"')
    with session.writer() as s:
        created = trait.create(s, name)
    headers = {"Location": f"{req.base_url}/traits/{name}"}
    return common.cached(req, ApiResponse(201 if created else 204, None, headers))


@common.handler("placement:traits:delete", since="1.6")
def delete(req: ApiRequest) -> ApiResponse:
    with session.writer() as s:
        trait.delete_trait(s, req.params["name"])
    return ApiResponse(204)


def _provider(s, req: ApiRequest) -> rp.Provider:
    uuid = req.params["uuid"]
    return rp.get(s, uuid, f"No resource provider with uuid {uuid} found")


def _provider_view(generation: int, names: list[str]) -> dict:
    return {"resource_provider_generation": generation, "traits": sorted(names)}


@common.handler("placement:resource_providers:traits:list", since="1.6")
def provider_index(req: ApiRequest) -> ApiResponse:
    with session.reader() as s:
        provider = _provider(s, req)
        names = trait.provider_traits(s, provider.id)
    return common.cached(req, ApiResponse(200, _provider_view(provider.generation, names)))


def _replace(req: ApiRequest, names: list[str], generation: int) -> int:
    with session.writer() as s:
        provider = _provider(s, req)
        if generation != provider.generation:
            raise error(409, "Resource provider's generation already changed. Please update "
                             "the generation and try again.", errors.CONCURRENT_UPDATE)
        ids = trait.require_ids(s, names, "No such trait %s")
        return trait.set_provider_traits(s, provider, generation, ids.values())


@common.handler("placement:resource_providers:traits:update", since="1.6")
def provider_update(req: ApiRequest) -> ApiResponse:
    body = common.validate(schema.SET_PROVIDER_TRAITS, req.body)
    generation = _replace(req, body["traits"], body["resource_provider_generation"])
    return common.cached(req, ApiResponse(200, _provider_view(generation, body["traits"])))


@common.handler("placement:resource_providers:traits:delete", since="1.6")
def provider_delete(req: ApiRequest) -> ApiResponse:
    with session.writer() as s:
        provider = _provider(s, req)
        trait.set_provider_traits(s, provider, provider.generation, [])
    return ApiResponse(204)
