"""/resource_providers/{uuid}/inventories[/{resource_class}]."""

from __future__ import annotations

from novalite.api.placement import common
from novalite.api.placement.errors import error
from novalite.api.placement.schemas import inventory as schema
from novalite.api.request import ApiRequest, ApiResponse
from novalite.db import session
from novalite.placement import errors, inventory
from novalite.placement import resource_provider as rp
from novalite.placement.inventory import Inventory


def _provider(s, req: ApiRequest) -> rp.Provider:
    uuid = req.params["uuid"]
    return rp.get(s, uuid, f"No resource provider with uuid {uuid} found")


def _all_view(generation: int, invs: dict[str, Inventory]) -> dict:
    return {"resource_provider_generation": generation,
            "inventories": {name: inv.view() for name, inv in invs.items()}}


def _one_view(generation: int, inv: Inventory) -> dict:
    return {"resource_provider_generation": generation, **inv.view()}


def _check(req: ApiRequest, provider: rp.Provider, invs: dict[str, Inventory],
           prefix: str) -> None:
    inventory.check_capacity(provider, invs, req.at_least("1.26"),
                             f"{prefix} for resource provider {provider.uuid}")


@common.handler("placement:resource_providers:inventories:list")
def index(req: ApiRequest) -> ApiResponse:
    with session.reader() as s:
        provider = _provider(s, req)
        invs = inventory.get_all(s, provider.id)
        when = inventory.last_modified(s, provider.id)
    return common.cached(req, ApiResponse(200, _all_view(provider.generation, invs)), when)


@common.handler("placement:resource_providers:inventories:show")
def show(req: ApiRequest) -> ApiResponse:
    name = req.params["resource_class"]
    with session.reader() as s:
        provider = _provider(s, req)
        inv = inventory.get_all(s, provider.id).get(name)
        when = inventory.last_modified(s, provider.id)
    if inv is None:
        raise error(404, f"No inventory of class {name} for {provider.uuid}")
    return common.cached(req, ApiResponse(200, _one_view(provider.generation, inv)), when)


@common.handler("placement:resource_providers:inventories:create")
def create(req: ApiRequest) -> ApiResponse:
    body = common.validate(schema.POST, req.body)
    name, inv = body["resource_class"], Inventory.from_body(body)
    with session.writer() as s:
        provider = _provider(s, req)
        _check(req, provider, {name: inv}, "Unable to create inventory")
        generation = inventory.add(s, provider, name, inv)
    location = f"{req.base_url}/resource_providers/{provider.uuid}/inventories/{name}"
    return common.cached(req, ApiResponse(201, _one_view(generation, inv),
                                          {"Location": location}))


@common.handler("placement:resource_providers:inventories:update")
def replace_all(req: ApiRequest) -> ApiResponse:
    body = common.validate(schema.PUT_ALL, req.body)
    invs = {name: Inventory.from_body(data) for name, data in body["inventories"].items()}
    with session.writer() as s:
        provider = _provider(s, req)
        _check(req, provider, invs, "Unable to update inventory")
        generation = inventory.replace_all(s, provider, body["resource_provider_generation"],
                                           invs)
    return common.cached(req, ApiResponse(200, _all_view(generation, invs)))


@common.handler("placement:resource_providers:inventories:update")
def update(req: ApiRequest) -> ApiResponse:
    body = common.validate(schema.PUT_ONE, req.body)
    name, inv = req.params["resource_class"], Inventory.from_body(body)
    with session.writer() as s:
        provider = _provider(s, req)
        _check(req, provider, {name: inv}, "Unable to update inventory")
        generation = inventory.update_one(s, provider, body["resource_provider_generation"],
                                          name, inv)
    return common.cached(req, ApiResponse(200, _one_view(generation, inv)))


@common.handler("placement:resource_providers:inventories:delete")
def delete(req: ApiRequest) -> ApiResponse:
    with session.writer() as s:
        inventory.delete_one(s, _provider(s, req), req.params["resource_class"])
    return ApiResponse(204)


@common.handler("placement:resource_providers:inventories:delete", since="1.5")
def delete_all(req: ApiRequest) -> ApiResponse:
    with session.writer() as s:
        try:
            inventory.delete_all(s, _provider(s, req))
        except errors.ConcurrentUpdate as exc:
            raise error(409, f"Unable to delete inventory for resource provider "
                             f"{req.params['uuid']} because the inventory was updated by "
                             "another process. Please retry your request.",
                        errors.CONCURRENT_UPDATE) from exc
    return ApiResponse(204)
