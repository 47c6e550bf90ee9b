"""The resource tracker: what this host's nodes have, what its instances use, and the
claim that guarantees a build never overcommits the host.

Usage is the sum over instances the database places on this host plus in-flight claims;
every change is reported at once (through the conductor), so the scheduler's view is
never more than one report behind.
"""

from __future__ import annotations

import logging
import threading

from novalite import exception
from novalite.compute import capacity
from novalite.conductor.rpcapi import ConductorAPI
from novalite.conf import CONF
from novalite.context import RequestContext
from novalite.objects.compute_node import ComputeNode
from novalite.objects.instance import Instance
from novalite.virt.driver import ComputeDriver

LOG = logging.getLogger(__name__)


class ResourceTracker:
    def __init__(self, host: str, driver: ComputeDriver, conductor: ConductorAPI) -> None:
        self.host = host
        self.driver = driver
        self.conductor = conductor
        self.service_id: int | None = None
        self.nodes: dict[str, ComputeNode] = {}
        # instance uuid -> (node, resources) of every instance holding resources here
        self.tracked: dict[str, tuple[str, capacity.Resources]] = {}
        self._lock = threading.Lock()

    def update_available_resource(self, ctx: RequestContext) -> None:
        """Re-read the hypervisor and the instances placed here, then report."""
        placed = self.conductor.instance_get_all_by_host(ctx, self.host)
        with self._lock:
            self.tracked = {i.uuid: (i.node, capacity.requested(i.flavor))
                            for i in placed if i.flavor is not None}
            for nodename in self.driver.get_available_nodes(refresh=True):
                self.nodes[nodename] = self._node_from_driver(nodename)
                self._report(ctx, nodename)

    def _node_from_driver(self, nodename: str) -> ComputeNode:
        res = self.driver.get_available_resource(nodename)
        cpu, ram, disk = capacity.allocation_ratios()
        return ComputeNode(
            uuid=self.driver.node_uuid(nodename) or nodename, host=self.host,
            hypervisor_hostname=nodename, hypervisor_type=res["hypervisor_type"],
            hypervisor_version=res["hypervisor_version"], vcpus=res["vcpus"],
            memory_mb=res["memory_mb"], local_gb=res["local_gb"], cpu_info=res["cpu_info"],
            supported_instances=res.get("supported_instances", []), host_ip=CONF.my_ip,
            disk_available_least=res.get("disk_available_least"),
            cpu_allocation_ratio=cpu, ram_allocation_ratio=ram, disk_allocation_ratio=disk,
            reserved_host_cpus=CONF.reserved_host_cpus,
            reserved_host_memory_mb=CONF.reserved_host_memory_mb,
            reserved_host_disk_mb=CONF.reserved_host_disk_mb,
        )

    def _report(self, ctx: RequestContext, nodename: str) -> None:
        """Fold tracked usage into the node record and send it (lock held)."""
        node = self.nodes[nodename]
        usage = [res for n, res in self.tracked.values() if n == nodename]
        total = sum(usage, capacity.Resources())
        node.vcpus_used, node.memory_mb_used = int(total.vcpus), int(total.memory_mb)
        node.local_gb_used, node.running_vms = int(total.disk_gb), len(usage)
        self.conductor.compute_node_save(ctx, node, self.service_id)

    def instance_claim(self, ctx: RequestContext, instance: Instance, nodename: str) -> None:
        """Reserve the flavor's resources on `nodename` or raise ComputeResourcesUnavailable."""
        wanted = capacity.requested(instance.flavor)
        with self._lock:
            if nodename not in self.nodes:
                raise exception.ComputeResourcesUnavailable(
                    reason=f"node {nodename} is not managed by host {self.host}")
            held = self.tracked.pop(instance.uuid, None)
            used = sum((r for n, r in self.tracked.values() if n == nodename),
                       capacity.Resources())
            free = capacity.capacity(self.nodes[nodename]) - used
            if not free.covers(wanted):
                if held:
                    self.tracked[instance.uuid] = held
                raise exception.ComputeResourcesUnavailable(reason=free.shortfall(wanted))
            self.tracked[instance.uuid] = (nodename, wanted)
            self._report(ctx, nodename)

    def instance_uuids(self) -> list[str]:
        """The instances holding resources here: placed ones and in-flight builds."""
        with self._lock:
            return sorted(self.tracked)

    def release(self, ctx: RequestContext, instance_uuid: str) -> None:
        """Free what the instance held, exactly once (a second release is a no-op)."""
        with self._lock:
            held = self.tracked.pop(instance_uuid, None)
            if held is not None:
                self._report(ctx, held[0])
