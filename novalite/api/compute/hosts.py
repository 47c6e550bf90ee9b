"""Handler of GET /os-hosts (admin, until 2.42): the hosts of the enabled services.

Nova deprecated the API at 2.43 in favour of os-services and os-hypervisors and answers
404 above it; `zone` narrows the list to one availability zone.
"""

from __future__ import annotations

from novalite import availability_zones
from novalite.api import policy
from novalite.api.faults import HTTPFault
from novalite.api.request import ApiRequest, ApiResponse
from novalite.db.api import services

RULE = "os_compute_api:os-hosts:{}"


def _deprecated(req: ApiRequest) -> None:
    if req.at_least("2.43"):
        raise HTTPFault(404, "The resource could not be found.")


def index(req: ApiRequest) -> ApiResponse:
    _deprecated(req)
    policy.authorize(req.ctx, RULE.format("list"))
    zones = availability_zones.host_zones()
    wanted = req.query.get("zone")
    hosts = []
    for svc in services.service_get_all():
        zone = availability_zones.zone_of(svc, zones)
        if svc.disabled or (wanted and zone != wanted):
            continue
        hosts.append({"host_name": svc.host, "zone": zone,
                      "service": svc.topic or svc.binary.split("-", 1)[-1]})
    return ApiResponse(200, {"hosts": hosts})
