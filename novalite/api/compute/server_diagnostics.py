"""`GET /servers/{id}/diagnostics` (admin): what the server's hypervisor measures of its
running guest, in the standard form from 2.48 and in the driver-keyed form before."""

from __future__ import annotations

from novalite.api import policy
from novalite.api.compute.servers import get_instance
from novalite.api.compute.views import diagnostics as view
from novalite.api.request import ApiRequest, ApiResponse
from novalite.compute.api import API


def index(req: ApiRequest) -> ApiResponse:
    instance = get_instance(req)
    policy.authorize(req.ctx, "os_compute_api:os-server-diagnostics", instance.project_id)
    found = API().get_instance_diagnostics(req.ctx, instance)
    return ApiResponse(200, view.standard(found) if req.at_least("2.48")
                       else view.legacy(found))
