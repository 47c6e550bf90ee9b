"""Handlers of /os-availability-zone: the zone list (anyone) and its detail (admin)."""

from __future__ import annotations

from novalite import availability_zones as azs
from novalite.api import policy
from novalite.api.compute.services import OTHER_PROJECTS
from novalite.api.compute.views import availability_zones as view
from novalite.api.request import ApiRequest, ApiResponse
from novalite.conf import CONF
from novalite.service import liveness

# API services are left out of the detail, as Nova leaves out nova-osapi_compute, and so
# are other projects' services.
_HIDDEN = {"novalite-api", *OTHER_PROJECTS}


def index(req: ApiRequest) -> ApiResponse:
    """Zones of the computes; the internal zone is hidden."""
    policy.authorize(req.ctx, "os_compute_api:os-availability-zone:list")
    available, unavailable = azs.split(azs.services_with_zones())
    internal = CONF.internal_service_availability_zone
    return ApiResponse(200, {"availabilityZoneInfo": (
        [view.zone(z, True) for z in available if z != internal] +
        [view.zone(z, False) for z in unavailable if z != internal])})


def detail(req: ApiRequest) -> ApiResponse:
    """Every zone; an available one with its hosts and each host's enabled services."""
    policy.authorize(req.ctx, "os_compute_api:os-availability-zone:detail")
    zoned = azs.services_with_zones()
    available, unavailable = azs.split(zoned)
    hosts: dict[str, dict[str, dict]] = {}
    for svc, zone in zoned:
        if not svc.disabled and svc.binary not in _HIDDEN:
            hosts.setdefault(zone, {}).setdefault(svc.host, {})[svc.binary] = \
                view.service(svc, liveness.service_is_up(svc))
    return ApiResponse(200, {"availabilityZoneInfo": (
        [view.zone(z, True, hosts.get(z, {})) for z in available] +
        [view.zone(z, False) for z in unavailable])})
