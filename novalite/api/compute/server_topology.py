"""`GET /servers/{id}/topology` (2.78): the guest NUMA nodes the server's flavor and
image ask for, as Nova shows an instance's NUMA topology.

novalite keeps no record of which host cells a server's nodes were fitted to (its
resource tracker fits the flavors again when it counts), so the admin-only `host_node`
and `cpu_pinning` are not shown, and `pagesize_kb` is given only where a size was asked
by number; both are optional in Nova's response schema.
"""

from __future__ import annotations

from novalite.api import policy
from novalite.api.compute.servers import get_instance
from novalite.api.faults import HTTPFault
from novalite.api.request import ApiRequest, ApiResponse
from novalite.db.api import request_specs
from novalite.hardware import numa_fit
from novalite.objects.instance import Instance


def _guest_topology(instance: Instance) -> dict:
    spec = request_specs.request_specs_get([instance.uuid]).get(instance.uuid)
    wanted = (numa_fit.numa_constraints(instance.flavor, spec.image if spec else None)
              if instance.flavor else None)
    if wanted is None:
        return {"nodes": [], "pagesize_kb": None}
    nodes = [{"vcpu_set": sorted(cell.cpuset | cell.pcpuset), "siblings": [],
              "memory_mb": cell.memory} for cell in wanted.cells]
    sizes = {cell.pagesize for cell in wanted.cells if cell.pagesize and cell.pagesize > 0}
    return {"nodes": nodes, "pagesize_kb": sizes.pop() if len(sizes) == 1 else None}


def index(req: ApiRequest) -> ApiResponse:
    if not req.at_least("2.78"):
        raise HTTPFault(404, "The resource could not be found.")
    instance = get_instance(req)
    policy.authorize(req.ctx, "compute:server:topology:index", instance.project_id)
    return ApiResponse(200, _guest_topology(instance))
