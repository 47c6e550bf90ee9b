"""Builders for the objects tests need, with sensible defaults to override."""

from __future__ import annotations

import uuid

from novalite.objects.aggregate import Aggregate
from novalite.objects.compute_node import ComputeNode
from novalite.objects.flavor import Flavor
from novalite.objects.image import ImageMeta
from novalite.objects.instance import Instance
from novalite.objects.request_spec import RequestSpec


def flavor(**kw) -> Flavor:
    data = {"flavorid": "1", "name": "m1.tiny", "memory_mb": 512, "vcpus": 1, "root_gb": 1}
    return Flavor(**{**data, **kw})


def aggregate(id: int = 1, **kw) -> Aggregate:
    data = {"uuid": str(uuid.uuid5(uuid.NAMESPACE_DNS, f"aggregate{id}")), "name": f"agg{id}"}
    return Aggregate(id=id, **{**data, **kw})


def node(host: str = "host1", **kw) -> ComputeNode:
    data = {"uuid": str(uuid.uuid5(uuid.NAMESPACE_DNS, host)), "host": host,
            "hypervisor_hostname": host, "hypervisor_type": "fake", "hypervisor_version": 1,
            "vcpus": 16, "memory_mb": 65536, "local_gb": 1024, "cpu_allocation_ratio": 4.0,
            "ram_allocation_ratio": 1.0, "disk_allocation_ratio": 1.0,
            "reserved_host_memory_mb": 512}
    return ComputeNode(**{**data, **kw})


def instance(**kw) -> Instance:
    data = {"uuid": str(uuid.uuid4()), "display_name": "vm", "project_id": "p1",
            "user_id": "u1", "flavor": flavor(), "vm_state": "building",
            "task_state": "scheduling"}
    return Instance(**{**data, **kw})


def request_spec(**kw) -> RequestSpec:
    data = {"instance_uuid": str(uuid.uuid4()), "flavor": flavor(),
            "image": ImageMeta(id="img-1", name="cirros"), "project_id": "p1",
            "user_id": "u1"}
    return RequestSpec(**{**data, **kw})


def host_state(host: str = "host1", **kw):
    """A HostState as the host manager builds it from a compute node report."""
    from novalite.scheduler.host_state import HostState

    node_fields = {k: kw.pop(k) for k in list(kw) if k in ComputeNode.__dataclass_fields__}
    state = HostState.from_compute_node(node(host, **node_fields))
    for key, value in kw.items():
        setattr(state, key, value)
    return state
