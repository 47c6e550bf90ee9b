"""Handlers of os-flavor-access (admin only): which projects may use a private flavor.

GET /flavors/{id}/os-flavor-access lists them; POST /flavors/{id}/action with
`addTenantAccess` or `removeTenantAccess` changes them and answers the new list. Project
IDs are taken as given; Nova asks Keystone whether the project exists
(verify_project_id), which novalite does not do yet.
"""

from __future__ import annotations

from novalite.api import policy
from novalite.api.compute import actions
from novalite.api.compute.schemas import flavor_access as schema
from novalite.api.compute.schemas import validate
from novalite.api.compute.views import flavors as view
from novalite.api.faults import HTTPFault
from novalite.api.request import ApiRequest, ApiResponse
from novalite.compute import flavors as compute_flavors
from novalite.db.api import flavors

_RULE = "os_compute_api:os-flavor-access"


def index(req: ApiRequest) -> ApiResponse:
    policy.authorize(req.ctx, _RULE)
    flavor = flavors.flavor_get_by_flavorid(req.params["flavor_id"])
    if flavor.is_public:
        raise HTTPFault(404, "Access list not available for public flavors.")
    return ApiResponse(200, view.access(flavor.flavorid,
                                        flavors.flavor_access_get(flavor.flavorid)))


def _add(req: ApiRequest) -> ApiResponse:
    validate(schema.add_tenant_access, req.body)
    policy.authorize(req.ctx, f"{_RULE}:add_tenant_access")
    flavor = flavors.flavor_get_by_flavorid(req.params["flavor_id"])
    if req.at_least("2.7") and flavor.is_public:
        raise HTTPFault(409, "Can not add access to a public flavor.")
    projects = flavors.flavor_access_add(flavor.flavorid,
                                         req.body["addTenantAccess"]["tenant"])
    compute_flavors.notify_update(flavor.flavorid)
    return ApiResponse(200, view.access(flavor.flavorid, projects))


def _remove(req: ApiRequest) -> ApiResponse:
    validate(schema.remove_tenant_access, req.body)
    policy.authorize(req.ctx, f"{_RULE}:remove_tenant_access")
    projects = flavors.flavor_access_remove(req.params["flavor_id"],
                                            req.body["removeTenantAccess"]["tenant"])
    compute_flavors.notify_update(req.params["flavor_id"])
    return ApiResponse(200, view.access(req.params["flavor_id"], projects))


ACTIONS: actions.Table = {
    "addTenantAccess": _add,
    "removeTenantAccess": _remove,
}


def action(req: ApiRequest) -> ApiResponse:
    return actions.dispatch(req, ACTIONS)
