"""Hypervisor views: integer ids before 2.53 and compute node uuids from then on;
`cpu_info` a JSON string before 2.28 and an object from then on; from 2.88 the detail
drops the usage figures (placement has the true ones) and gains the host's `uptime`."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from novalite.objects.compute_node import ComputeNode
from novalite.objects.service import Service

_USAGE = ("vcpus", "memory_mb", "local_gb", "vcpus_used", "memory_mb_used", "local_gb_used",
          "current_workload", "running_vms", "disk_available_least")


@dataclasses.dataclass
class Hypervisor:
    """A compute node with its compute service, and (when asked) its servers."""

    node: ComputeNode
    service: Service
    is_up: bool
    servers: list[dict[str, str]] | None = None  # None: not asked for
    uptime: str | None = None  # asked of the compute service from 2.88


def _cpu_info(node: ComputeNode, version: tuple[int, int]) -> str | dict:
    if version < (2, 28):
        return node.cpu_info
    return json.loads(node.cpu_info) if node.cpu_info else {}


def _details(hyp: Hypervisor, version: tuple[int, int]) -> dict:
    node, service = hyp.node, hyp.service
    body: dict[str, Any] = {
        "hypervisor_type": node.hypervisor_type,
        "hypervisor_version": node.hypervisor_version, "host_ip": node.host_ip,
        "service": {"id": service.uuid if version >= (2, 53) else service.id,
                    "host": node.host, "disabled_reason": service.disabled_reason}}
    if version >= (2, 88):
        body["uptime"] = hyp.uptime
        return body
    body.update({f: getattr(node, f) for f in _USAGE})
    body.update(free_ram_mb=node.memory_mb - node.memory_mb_used,
                free_disk_gb=node.local_gb - node.local_gb_used,
                cpu_info=_cpu_info(node, version))
    return body


def hypervisor(hyp: Hypervisor, version: tuple[int, int], detail: bool) -> dict:
    body: dict[str, Any] = {"id": hyp.node.uuid if version >= (2, 53) else hyp.node.id,
                            "hypervisor_hostname": hyp.node.hypervisor_hostname,
                            "state": "up" if hyp.is_up else "down",
                            "status": "disabled" if hyp.service.disabled else "enabled"}
    if detail:
        body.update(_details(hyp, version))
    if hyp.servers or (hyp.servers is not None and version >= (2, 75)):
        body["servers"] = hyp.servers  # an empty list is left out before 2.75
    return body


def statistics(hypervisors: list[Hypervisor]) -> dict:
    """Sums over the hypervisors of enabled compute services."""
    nodes = [h.node for h in hypervisors if not h.service.disabled]
    totals = {f: sum(getattr(n, f) or 0 for n in nodes) for f in _USAGE}
    totals.update(count=len(nodes),
                  free_ram_mb=sum(n.memory_mb - n.memory_mb_used for n in nodes),
                  free_disk_gb=sum(n.local_gb - n.local_gb_used for n in nodes))
    return {"hypervisor_statistics": totals}
