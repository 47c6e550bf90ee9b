"""Handler of /limits: the project's quota limits and what it uses of them."""

from __future__ import annotations

from novalite.api import policy
from novalite.api.compute import query
from novalite.api.compute.views import limits as view
from novalite.api.request import ApiRequest, ApiResponse
from novalite.compute import quotas


def index(req: ApiRequest) -> ApiResponse:
    """`tenant_id` asks about another project (admins); `reserved` is accepted and, as
    in Nova today, changes nothing (nothing is ever reserved)."""
    policy.authorize(req.ctx, "os_compute_api:limits")
    query.only_from(req, "2.75", ("tenant_id",))
    if "tenant_id" in req.query:
        project_id = req.query["tenant_id"]
        policy.authorize(req.ctx, "os_compute_api:limits:other_project")
    else:
        project_id = req.ctx.require_project_id()
    return ApiResponse(200, view.build(quotas.limits(project_id), quotas.project_usage(project_id),
                                       req.version))
