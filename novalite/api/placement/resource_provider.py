"""/resource_providers and /resource_providers/{uuid}."""

from __future__ import annotations

import uuid as uuid_mod

from novalite.api.placement import common
from novalite.api.placement.errors import error
from novalite.api.placement.schemas import resource_provider as schema
from novalite.api.request import ApiRequest, ApiResponse
from novalite.db import session
from novalite.placement import errors, resource_class, trait
from novalite.placement import resource_provider as rp
from novalite.placement.resource_provider import Filters, Provider

MOUNT = "/placement"


def view(req: ApiRequest, p: Provider) -> dict:
    base = f"{MOUNT}/resource_providers/{p.uuid}"
    links = [("self", ""), ("inventories", "/inventories"), ("usages", "/usages")]
    if req.at_least("1.1"):
        links.append(("aggregates", "/aggregates"))
    if req.at_least("1.6"):
        links.append(("traits", "/traits"))
    if req.at_least("1.11"):
        links.append(("allocations", "/allocations"))
    body = {"uuid": p.uuid, "name": p.name, "generation": p.generation,
            "links": [{"rel": rel, "href": base + tail} for rel, tail in links]}
    if req.at_least("1.14"):
        body["parent_provider_uuid"] = p.parent_provider_uuid
        body["root_provider_uuid"] = p.root_provider_uuid
    return body


def _query_schema(req: ApiRequest) -> dict:
    for version, found in (("1.18", schema.QUERY_V1_18), ("1.14", schema.QUERY_V1_14),
                           ("1.4", schema.QUERY_V1_4), ("1.3", schema.QUERY_V1_3)):
        if req.at_least(version):
            return found
    return schema.QUERY_V1_0


def _aggregate_uuids(value: str) -> list[str]:
    uuids = value[3:].split(",") if value.startswith("in:") else [value]
    try:
        return [str(uuid_mod.UUID(u)) for u in uuids]
    except ValueError:
        raise error(400, "Invalid query string parameters: Expected 'member_of' parameter to "
                         f"contain valid UUID(s). Got: {value}",
                    errors.QUERYPARAM_BAD_VALUE) from None


def _member_of(req: ApiRequest, f: Filters) -> None:
    values = req.query.getlist("member_of")
    if len(values) > 1 and not req.at_least("1.24"):
        raise error(400, "Invalid query string parameters: Query parameter 'member_of' may "
                         "only be given once.", errors.ILLEGAL_DUPLICATE_QUERYPARAM)
    for value in values:
        forbidden = value.startswith("!") and req.at_least("1.32")
        uuids = _aggregate_uuids(value[1:] if forbidden else value)
        if forbidden:
            f.not_member_of.update(uuids)
        else:
            f.member_of.append(set(uuids))


def _required(req: ApiRequest, f: Filters, s) -> None:
    values = req.query.getlist("required")
    if len(values) > 1 and not req.at_least("1.39"):
        raise error(400, "Invalid query string parameters: Query parameter 'required' may "
                         "only be given once.", errors.ILLEGAL_DUPLICATE_QUERYPARAM)
    names: set[str] = set()
    for value in values:
        if value.startswith("in:") and req.at_least("1.39"):
            group = set(value[3:].split(","))
            f.required.append(group)
            names |= group
            continue
        for name in value.split(","):
            if name.startswith("!") and req.at_least("1.22"):
                f.forbidden.add(name[1:])
                names.add(name[1:])
            else:
                f.required.append({name})
                names.add(name)
    trait.require_ids(s, names, 'Invalid trait(s) in "required" parameter: No such trait(s): '
                                "%s.")


def _resources(value: str, s) -> dict[int, int]:
    wanted = {}
    for item in value.split(","):
        name, _, amount = item.partition(":")
        if not amount.isdigit() or not name:
            raise error(400, "Badly formed resources parameter. Expected resources query "
                             "string parameter in form: ?resources=VCPU:2,MEMORY_MB:1024. "
                             f"Got: {item}.")
        wanted[name] = int(amount)
    try:
        ids = resource_class.require_ids(s, wanted)
    except errors.NotFound as exc:
        raise error(400, f"Invalid resource class in resources parameter: {exc.message}"
                    ) from None
    return {ids[name]: amount for name, amount in wanted.items()}


@common.handler("placement:resource_providers:list")
def index(req: ApiRequest) -> ApiResponse:
    params = {k: v for k, v in req.query.items() if k not in ("member_of", "required")}
    extra = {k: "" for k in ("member_of", "required") if k in req.query}
    common.validate_query(params | extra, _query_schema(req))
    f = Filters(uuid=params.get("uuid"), name=params.get("name"),
                in_tree=params.get("in_tree"))
    with session.reader() as s:
        _member_of(req, f)
        _required(req, f, s)
        if "resources" in params:
            f.resources = _resources(params["resources"], s)
        providers = rp.list_providers(s, f)
    body = {"resource_providers": [view(req, p) for p in providers]}
    return common.cached(req, ApiResponse(200, body),
                         common.latest(*(p.updated_at for p in providers)))


@common.handler("placement:resource_providers:create")
def create(req: ApiRequest) -> ApiResponse:
    body = common.validate(schema.POST_V1_14 if req.at_least("1.14") else schema.POST_V1_0,
                           req.body)
    new_uuid = str(uuid_mod.UUID(body["uuid"])) if "uuid" in body else str(uuid_mod.uuid4())
    with session.writer() as s:
        provider = rp.create(s, new_uuid, body["name"], body.get("parent_provider_uuid"))
    headers = {"Location": f"{req.base_url}/resource_providers/{provider.uuid}"}
    if req.at_least("1.20"):
        response = ApiResponse(200, view(req, provider), headers)
        return common.cached(req, response, provider.updated_at)
    return ApiResponse(201, None, headers)


@common.handler("placement:resource_providers:show")
def show(req: ApiRequest) -> ApiResponse:
    with session.reader() as s:
        provider = rp.get(s, req.params["uuid"])
    return common.cached(req, ApiResponse(200, view(req, provider)), provider.updated_at)


@common.handler("placement:resource_providers:update")
def update(req: ApiRequest) -> ApiResponse:
    body = common.validate(schema.PUT_V1_14 if req.at_least("1.14") else schema.PUT_V1_0,
                           req.body)
    with session.writer() as s:
        provider = rp.get(s, req.params["uuid"])
        provider = rp.update_provider(s, provider, body["name"],
                                      body.get("parent_provider_uuid"),
                                      "parent_provider_uuid" in body, req.at_least("1.37"))
    return common.cached(req, ApiResponse(200, view(req, provider)), provider.updated_at)


@common.handler("placement:resource_providers:delete")
def delete(req: ApiRequest) -> ApiResponse:
    uuid = req.params["uuid"]
    with session.writer() as s:
        provider = rp.get(s, uuid, f"No resource provider with uuid {uuid} found for delete")
        rp.delete_provider(s, provider)
    return ApiResponse(204)
