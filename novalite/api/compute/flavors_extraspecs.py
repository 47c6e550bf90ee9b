"""Handlers of /flavors/{flavor_id}/os-extra_specs: anyone who may see the flavor reads
its extra specs; admins write them. The scheduler's filters read them from the flavor a
server is booted with.

Writes answer 200 with the request body as sent (numbers stay numbers there, though they
are stored, and later read, as strings); a delete answers 200 with no body. From 2.86
keys in Nova's namespaces are checked against its registry (extra_spec_registry).
"""

from __future__ import annotations

from novalite import exception
from novalite.api import policy
from novalite.api.compute import extra_spec_registry
from novalite.api.compute.flavors import project_filter
from novalite.api.compute.schemas import flavors_extraspecs as schema
from novalite.api.compute.schemas import validate
from novalite.api.faults import HTTPFault
from novalite.api.request import ApiRequest, ApiResponse
from novalite.compute import flavors as compute_flavors
from novalite.db.api import flavors
from novalite.objects.flavor import Flavor

_RULE = "os_compute_api:os-flavor-extra-specs:%s"
MAX_VALUE_LENGTH = 255


def _flavor(req: ApiRequest) -> Flavor:
    return flavors.flavor_get_by_flavorid(req.params["flavor_id"], project_filter(req))


def _as_strings(req: ApiRequest, specs: dict) -> dict[str, str]:
    """Numbers are accepted as values; the schema cannot bound their length."""
    for value in specs.values():
        if isinstance(value, (int, float)) and len(str(value)) > MAX_VALUE_LENGTH:
            raise HTTPFault(400, f"extra_specs value has {len(str(value))} characters, "
                                 f"more than {MAX_VALUE_LENGTH}.")
    strings = {key: str(value) for key, value in specs.items()}
    if req.at_least("2.86"):
        for key, value in strings.items():
            extra_spec_registry.validate(key, value)
    return strings


def index(req: ApiRequest) -> ApiResponse:
    policy.authorize(req.ctx, _RULE % "index", req.ctx.project_id)
    return ApiResponse(200, {"extra_specs": _flavor(req).extra_specs})


def create(req: ApiRequest) -> ApiResponse:
    """Add or overwrite many: `{"extra_specs": {key: value, ...}}`."""
    validate(schema.create, req.body)
    policy.authorize(req.ctx, _RULE % "create")
    flavors.flavor_extra_specs_update(req.params["flavor_id"],
                                      _as_strings(req, req.body["extra_specs"]))
    compute_flavors.notify_update(req.params["flavor_id"])
    return ApiResponse(200, req.body)


def show(req: ApiRequest) -> ApiResponse:
    policy.authorize(req.ctx, _RULE % "show", req.ctx.project_id)
    key = req.params["key"]
    specs = _flavor(req).extra_specs
    if key not in specs:
        raise exception.FlavorExtraSpecsNotFound(flavor_id=req.params["flavor_id"],
                                                 extra_specs_key=key)
    return ApiResponse(200, {key: specs[key]})


def update(req: ApiRequest) -> ApiResponse:
    """Set one: the body is exactly `{key: value}` with the key of the URL."""
    validate(schema.update, req.body)
    policy.authorize(req.ctx, _RULE % "update")
    specs = _as_strings(req, req.body)
    if req.params["key"] not in specs:
        raise HTTPFault(400, "Request body and URI mismatch")
    flavors.flavor_extra_specs_update(req.params["flavor_id"], specs)
    compute_flavors.notify_update(req.params["flavor_id"])
    return ApiResponse(200, req.body)


def delete(req: ApiRequest) -> ApiResponse:
    policy.authorize(req.ctx, _RULE % "delete")
    flavors.flavor_extra_spec_delete(req.params["flavor_id"], req.params["key"])
    compute_flavors.notify_update(req.params["flavor_id"])
    return ApiResponse(200)
