"""Handlers of GET /os-hosts and /os-hosts/{host} (admin, until 2.42): the hosts of the
enabled services, and what one compute host has and gives to each project.

Nova deprecated the API at 2.43 in favour of os-services and os-hypervisors and answers
404 above it; `zone` narrows the list to one availability zone. The host actions (enable,
maintenance, power) are NotImplemented in Nova's libvirt driver, so its 501: they stay in
novalite.api.compute.unserved.
"""

from __future__ import annotations

from novalite import availability_zones
from novalite.api import policy
from novalite.api.compute.services import OTHER_PROJECTS
from novalite.api.faults import HTTPFault
from novalite.api.request import ApiRequest, ApiResponse
from novalite.db.api import compute_nodes, instances, services
from novalite.objects.instance import Instance

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
        if svc.disabled or (wanted and zone != wanted) or svc.binary in OTHER_PROJECTS:
            continue
        hosts.append({"host_name": svc.host, "zone": zone,
                      "service": svc.topic or svc.binary.split("-", 1)[-1]})
    return ApiResponse(200, {"hosts": hosts})


def _resource(host: str, project: str, cpu: int, memory_mb: int, disk_gb: int) -> dict:
    return {"resource": {"host": host, "project": project, "cpu": cpu,
                         "memory_mb": memory_mb, "disk_gb": disk_gb}}


def _used(host: str, project: str, hosted: list[Instance]) -> dict:
    flavors = [i.flavor for i in hosted if i.flavor]
    return _resource(host, project, sum(f.vcpus for f in flavors),
                     sum(f.memory_mb for f in flavors),
                     sum(f.root_gb + f.ephemeral_gb for f in flavors))


def show(req: ApiRequest) -> ApiResponse:
    """The host's totals, what it reports in use, what its servers' flavors add up to
    (`(used_max)`), then that per project."""
    _deprecated(req)
    policy.authorize(req.ctx, RULE.format("show"))
    host = req.params["host"]
    nodes = compute_nodes.compute_node_get_by_host(host)
    if not nodes:
        raise HTTPFault(404, f"Compute host {host} could not be found.")
    node = nodes[0]
    hosted = instances.instance_get_all_by_host(host)
    projects = sorted({i.project_id for i in hosted if i.project_id})
    return ApiResponse(200, {"host": [
        _resource(host, "(total)", node.vcpus, node.memory_mb, node.local_gb),
        _resource(host, "(used_now)", node.vcpus_used, node.memory_mb_used,
                  node.local_gb_used),
        _used(host, "(used_max)", hosted),
        *(_used(host, p, [i for i in hosted if i.project_id == p]) for p in projects)]})
