"""The resource tracker: what this host's nodes have, what its instances use, and the
claim that guarantees a build never overcommits the host.

Usage is the sum over instances the database places on this host plus in-flight claims;
every change is reported at once (through the conductor), so the scheduler's view is
never more than one report behind. A node's NUMA cells and PCI devices are used as the
flavors of its instances ask (novalite.hardware.numa_fit), and it reports how many builds
failed in a row (the `failed_builds` stat the BuildFailureWeigher reads).
"""

from __future__ import annotations

import dataclasses
import logging
import math
import threading

import orjson

from novalite import exception
from novalite.clients import placement as placement_client
from novalite.compute import capacity, move_claims
from novalite.conductor.rpcapi import ConductorAPI
from novalite.conf import CONF
from novalite.context import RequestContext
from novalite.hardware import numa_fit, pci
from novalite.hardware.numa import NUMATopology
from novalite.objects.compute_node import ComputeNode
from novalite.objects.flavor import Flavor
from novalite.objects.instance import Instance
from novalite.objects.migration import Migration
from novalite.virt.driver import ComputeDriver, ProviderData

LOG = logging.getLogger(__name__)
DISABLED_TRAIT = "COMPUTE_STATUS_DISABLED"


@dataclasses.dataclass
class NodeWrite:
    """A node record a tracker would have written, for its caller to write together with
    other trackers' (the hosts of a process starting together) and then hand back
    (ResourceTracker.node_written)."""

    tracker: ResourceTracker
    nodename: str
    node: ComputeNode
    service_id: int | None
    written: tuple[bytes, int | None]


def _snapshot(node: ComputeNode) -> bytes:
    """The node record's fields as they stand, to compare with what was last written:
    their JSON, in one call (a deep copy of them, three a boot, was 1 % of its CPU)."""
    return orjson.dumps(node.fields(), option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)


def _takes_hardware(flavor: Flavor) -> bool:
    """Whether the flavor takes NUMA cells or PCI devices (or asks for them wrongly).
    Each claim and report takes the shares of the node's instances that do: asking it of
    every instance's flavor, each time, was 3 % of a boot's CPU in a storm of 300
    servers on 4 hosts."""
    try:
        return numa_fit.numa_constraints(flavor, None) is not None or \
            bool(pci.requests_from_flavor(flavor))
    except exception.Invalid:
        return True


@dataclasses.dataclass(frozen=True)
class Held:
    """A host's instances and moves in progress as read from the database, and how many
    changes its tracker had made (claims, releases) when the read began: a read that
    began before a change may not show it, so it is not used after one."""

    changes: int
    instances: list[Instance]
    migrations: list[Migration]


def read_held(ctx: RequestContext, trackers: list[ResourceTracker]) -> list[Held]:
    """What each of these trackers' hosts holds, in two reads for all of them."""
    changes = [tracker.changes for tracker in trackers]  # before the reads
    hosts = [tracker.host for tracker in trackers]
    conductor = trackers[0].conductor
    placed = conductor.instance_get_all_by_hosts(ctx, hosts)
    moves = conductor.migration_get_in_progress_by_hosts(ctx, hosts)
    return [Held(seen, placed.get(host, []), moves.get(host, []))
            for seen, host in zip(changes, hosts, strict=True)]


class ResourceTracker:
    def __init__(self, host: str, driver: ComputeDriver, conductor: ConductorAPI,
                 reportclient: placement_client.SchedulerReportClient | None = None) -> None:
        self.host = host
        self.driver = driver
        self.conductor = conductor
        self.reportclient = reportclient or placement_client.report_client()
        self.service_id: int | None = None
        self.nodes: dict[str, ComputeNode] = {}
        # instance uuid -> (node, resources) of every instance holding resources here
        self.tracked: dict[str, tuple[str | None, capacity.Resources]] = {}
        # the flavors of the tracked instances that take NUMA cells or PCI devices
        self.flavors: dict[str, Flavor] = {}
        self.moves: set[str] = set()  # tracked consumers that are migrations, not instances
        # node -> its NUMA topology and PCI device pools with nothing in use
        self._hardware: dict[str, tuple[NUMATopology | None, tuple[pci.PciPool, ...]]] = {}
        self.failed_builds: dict[str, int] = {}  # node -> builds failed in a row
        # node -> what was last written of it (and for which service): Nova's
        # old_resources, so that a periodic run that changed nothing writes nothing
        self._written: dict[str, tuple[bytes, int | None]] = {}
        # Instances here with a task under way: Nova's io_workload, the num_io_ops that
        # IoOpsFilter and IoOpsWeigher read (the node's current_workload).
        self.busy: set[str] = set()
        # The service is disabled (os-services): its nodes carry COMPUTE_STATUS_DISABLED,
        # which the scheduler's pre-filter keeps new servers away from.
        self.disabled = False
        # A host never registered before has no providers yet: its first report creates
        # them without looking first (a request less per node; a 10,000-host start).
        self.new_host = False
        self._lock = threading.Lock()
        self.changes = 0  # claims and releases made, under the lock (see Held)

    def read_held(self, ctx: RequestContext) -> Held:
        changes = self.changes
        return Held(changes, self.conductor.instance_get_all_by_host(ctx, self.host),
                    self.conductor.migration_get_in_progress_by_host(ctx, self.host))

    def nothing_held(self) -> Held:
        """What a host that was found to hold nothing at its start holds."""
        return Held(self.changes, [], [])

    def update_available_resource(self, ctx: RequestContext, held: Held | None = None,
                                  writes: list[NodeWrite] | None = None) -> None:
        """Re-read the hypervisor and the instances placed here, then placement_client.
        `held`: this host's instances and moves in progress, when the caller read them;
        `writes`: where to leave the node records to write, for the caller to write them
        (and nothing may change them until it has).

        The instances are read outside the lock, so that claims need not wait for the
        database. A claim or release made since the read began would be undone by it:
        then they are read again, under the lock the second time (as Nova's tracker
        always reads them)."""
        if held is None or held.changes != self.changes:
            held = self.read_held(ctx)
        with self._lock:
            if held.changes != self.changes:
                held = self.read_held(ctx)
            placed = held.instances
            moves = move_claims.held_by_moves(self.host, {i.uuid: i for i in placed},
                                              held.migrations)
            self.tracked = {i.uuid: (i.node, capacity.requested(i.flavor, i.is_volume_backed))
                            for i in placed if i.flavor is not None}
            self.flavors = {i.uuid: i.flavor for i in placed
                            if i.flavor is not None and _takes_hardware(i.flavor)}
            self.moves = set(moves)
            for consumer, (node, flavor) in moves.items():
                self.tracked[consumer] = (node, capacity.requested(flavor))
                self._keep_flavor(consumer, flavor)
            self.busy = {i.uuid for i in placed if i.task_state is not None}
            for nodename in self.driver.get_available_nodes(refresh=True):
                self.nodes[nodename] = self._node_from_driver(nodename)
                self._report(ctx, nodename, writes)
        for nodename in list(self.nodes):
            self._report_to_placement(ctx, nodename)
        self.new_host = False

    def set_disabled(self, ctx: RequestContext, disabled: bool) -> None:
        """Add or remove the disabled trait on every node of this host at once."""
        self.disabled = disabled
        for nodename in list(self.nodes):
            self._report_to_placement(ctx, nodename)

    def _report_to_placement(self, ctx: RequestContext, nodename: str) -> None:
        """The node's provider, inventory and traits (only what changed is sent). A
        placement outage is logged and retried by the next periodic run; the node's
        capacity simply isn't offered to the schedulers until then."""
        node = self.nodes[nodename]
        provider = ProviderData(inventory=placement_inventory(node))
        self.driver.update_provider_tree(provider, nodename)
        if self.disabled:
            provider.traits.add(DISABLED_TRAIT)
        try:
            self.reportclient.update_provider(ctx, node.uuid, nodename, provider.inventory,
                                              provider.traits, probably_new=self.new_host)
        except exception.NovaliteException as exc:
            LOG.error("Could not report node %s to placement: %s", nodename,
                      exc.format_message())

    def _node_from_driver(self, nodename: str) -> ComputeNode:
        res = self.driver.get_available_resource(nodename)
        cpu, ram, disk = capacity.allocation_ratios()
        self._hardware[nodename] = (NUMATopology.from_dict(res.get("numa_topology")),
                                    pci.pools_from_dicts(res.get("pci_stats") or ()))
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
            metrics=list(res.get("metrics") or ()), numa_topology=res.get("numa_topology"),
            pci_stats=list(res.get("pci_stats") or ()),
        )

    def _report(self, ctx: RequestContext, nodename: str,
                writes: list[NodeWrite] | None = None) -> None:
        """Fold tracked usage into the node record and send it if it changed, or leave
        it in `writes` (lock held)."""
        node = self.nodes[nodename]
        total, count = self._used(nodename)
        node.vcpus_used, node.memory_mb_used = int(total.vcpus), int(total.memory_mb)
        node.local_gb_used, node.running_vms = int(total.disk_gb), count
        node.current_workload = sum(1 for uuid in self.busy
                                    if self.tracked.get(uuid, ("",))[0] == nodename)
        topology, pools = self._numa_and_pci_in_use(nodename)
        node.numa_topology = topology.to_dict() if topology else None
        node.pci_stats = [pool.to_dict() for pool in pools]
        if nodename in self.failed_builds:
            node.stats = {**node.stats, "failed_builds": str(self.failed_builds[nodename])}
        written = (_snapshot(node), self.service_id)
        if self._written.get(nodename) == written:
            return  # Nova's _resource_change: the record and the schedulers' view hold it
        if writes is not None:
            writes.append(NodeWrite(self, nodename, node, self.service_id, written))
            return
        # its id, once known, spares the next save a lookup
        node.id = self.conductor.compute_node_save(ctx, node, self.service_id).id
        self._written[nodename] = (_snapshot(node), self.service_id)

    def _used(self, nodename: str) -> tuple[capacity.Resources, int]:
        """What the consumers tracked on the node hold, and how many they are (lock
        held). Summed in plain numbers: a Resources per consumer added was 2% of a
        boot storm's samples, two sums a build over a host's hundred servers."""
        vcpus = memory_mb = disk_gb = 0.0
        count = 0
        for node, held in self.tracked.values():
            if node == nodename:
                vcpus += held.vcpus
                memory_mb += held.memory_mb
                disk_gb += held.disk_gb
                count += 1
        return capacity.Resources(vcpus, memory_mb, disk_gb), count

    def node_written(self, write: NodeWrite) -> None:
        """A record left in `writes` by update_available_resource is written."""
        with self._lock:
            self._written[write.nodename] = write.written

    def _numa_and_pci_in_use(self, nodename: str
                             ) -> tuple[NUMATopology | None, tuple[pci.PciPool, ...]]:
        """The node's NUMA topology and free PCI pools with its instances' shares taken
        (lock held)."""
        topology, pools = self._hardware.get(nodename, (None, ()))
        for uuid, (node, _) in self.tracked.items():
            if node == nodename and uuid in self.flavors:
                topology, pools, _ = self._take(topology, pools, self.flavors[uuid])
        return topology, pools

    def _keep_flavor(self, uuid: str, flavor: Flavor) -> None:
        if _takes_hardware(flavor):
            self.flavors[uuid] = flavor
        else:
            self.flavors.pop(uuid, None)

    def _take(self, topology: NUMATopology | None, pools: tuple[pci.PciPool, ...],
              flavor: Flavor) -> tuple[NUMATopology | None, tuple[pci.PciPool, ...],
                                       str | None]:
        try:
            wanted = numa_fit.numa_constraints(flavor, None)
            devices = pci.requests_from_flavor(flavor)
        except exception.Invalid as exc:
            return topology, pools, exc.format_message()
        if wanted is None and not devices:
            return topology, pools, None
        cpu, ram, _ = capacity.allocation_ratios()
        limits = {"cpu_allocation_ratio": cpu, "ram_allocation_ratio": ram}
        return numa_fit.take(topology, pools, wanted, devices, limits)

    def instance_claim(self, ctx: RequestContext, instance: Instance, nodename: str) -> None:
        """Reserve the flavor's resources on `nodename` or raise ComputeResourcesUnavailable."""
        flavor = instance.flavor
        if flavor is None:
            raise exception.ComputeResourcesUnavailable(
                reason=f"instance {instance.uuid} has no flavor to claim")
        wanted = capacity.requested(flavor, instance.is_volume_backed)
        with self._lock:
            if nodename not in self.nodes:
                raise exception.ComputeResourcesUnavailable(
                    reason=f"node {nodename} is not managed by host {self.host}")
            held = self.tracked.pop(instance.uuid, None)
            free = capacity.capacity(self.nodes[nodename]) - self._used(nodename)[0]
            why_not = free.shortfall(wanted) if not free.covers(wanted) else \
                self._take(*self._numa_and_pci_in_use(nodename), flavor)[2]
            if why_not:
                if held:
                    self.tracked[instance.uuid] = held
                raise exception.ComputeResourcesUnavailable(reason=why_not)
            self.tracked[instance.uuid] = (nodename, wanted)
            self._keep_flavor(instance.uuid, flavor)
            self.busy.add(instance.uuid)
            self.changes += 1
            self._report(ctx, nodename)

    def move_claim(self, ctx: RequestContext, instance: Instance, migration_uuid: str,
                   flavor: Flavor, nodename: str) -> None:
        """Claim `flavor` on `nodename` for a move to this host, under the migration's
        uuid until the instance lands; ComputeResourcesUnavailable if it does not fit."""
        self.instance_claim(ctx, dataclasses.replace(instance, uuid=migration_uuid,
                                                     flavor=flavor), nodename)
        with self._lock:
            self.moves.add(migration_uuid)

    def hold(self, ctx: RequestContext, consumer: str, flavor: Flavor,
             nodename: str | None, instance_uuid: str) -> None:
        """Count what a move already has on this host (its old flavor on the source, the
        instance that just landed) without checking: it holds it already."""
        with self._lock:
            self.tracked[consumer] = (nodename, capacity.requested(flavor))
            self._keep_flavor(consumer, flavor)
            self.changes += 1
            if consumer != instance_uuid:
                self.moves.add(consumer)
            if nodename in self.nodes:
                self._report(ctx, nodename)

    def instance_uuids(self) -> list[str]:
        """The instances holding resources here: placed ones and in-flight builds."""
        with self._lock:
            return sorted(set(self.tracked) - self.moves)

    def release(self, ctx: RequestContext, instance_uuid: str) -> None:
        """Free what the instance held, exactly once (a second release is a no-op)."""
        with self._lock:
            held = self.tracked.pop(instance_uuid, None)
            self.flavors.pop(instance_uuid, None)
            self.moves.discard(instance_uuid)
            self.busy.discard(instance_uuid)
            self.changes += 1
            if held is not None and held[0] is not None:
                self._report(ctx, held[0])

    def build_finished(self, ctx: RequestContext, nodename: str, instance_uuid: str,
                       failed: bool | None) -> None:
        """A build's task is over: one less I/O operation on the node, and (unless
        `failed` is None: not counted) one more build failed in a row, or the count
        back to 0 after a success. The scheduler hears at once."""
        with self._lock:
            changed = instance_uuid in self.busy
            self.busy.discard(instance_uuid)
            self.changes += 1
            if failed:
                self.failed_builds[nodename] = self.failed_builds.get(nodename, 0) + 1
            elif failed is not None:
                changed |= bool(self.failed_builds.get(nodename))
                self.failed_builds[nodename] = 0
            if (changed or failed) and nodename in self.nodes:
                self._report(ctx, nodename)


def placement_inventory(node: ComputeNode) -> dict[str, dict]:
    """VCPU, MEMORY_MB and DISK_GB as placement counts them: total, reserved for the
    host, and the allocation ratio; a class the node has none of is left out."""
    classes = {
        "VCPU": (node.vcpus, node.reserved_host_cpus, node.cpu_allocation_ratio),
        "MEMORY_MB": (node.memory_mb, node.reserved_host_memory_mb,
                      node.ram_allocation_ratio),
        "DISK_GB": (node.local_gb, math.ceil(node.reserved_host_disk_mb / 1024),
                    node.disk_allocation_ratio),
    }
    return {rc: {"total": total, "reserved": min(reserved, total), "min_unit": 1,
                 "max_unit": total, "step_size": 1, "allocation_ratio": ratio}
            for rc, (total, reserved, ratio) in classes.items() if total > 0}
