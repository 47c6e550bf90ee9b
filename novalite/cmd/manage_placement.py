"""`novalite-manage placement ...`: keeping placement in step with the instances.

- `audit [--heal]`: allocations held by no live instance on that node nor a move in
  progress there (a failed delete, a crash between steps) and live instances holding no
  allocation. With --heal, the
  first are removed and the second are given their flavor's resources on their node.
  Exit codes as Nova's audit: 0 nothing found, 3 found (not healed), 4 healed.
- `sync_aggregates`: mirror every host aggregate's hosts into placement (after hosts
  joined an aggregate before their compute first reported, or placement was away).
"""

from __future__ import annotations

from novalite import exception
from novalite.clients import placement as placement_client
from novalite.compute import capacity
from novalite.context import get_admin_context
from novalite.db.api import aggregates, compute_nodes, instances, migrations
from novalite.objects.compute_node import ComputeNode

FOUND, HEALED = 3, 4


def _orphans(client: placement_client.SchedulerReportClient, node: ComputeNode) -> list[str]:
    """Consumers on the node's provider that are no live instance of that node, nor a
    move in progress from or to it (whose migration holds the source allocation)."""
    ctx = get_admin_context()
    here = {i.uuid for i in instances.instance_get_all_by_host(node.host)
            if i.node == node.hypervisor_hostname}
    here |= {m.uuid for m in migrations.migration_get_in_progress_by_host(node.host)
             if node.hypervisor_hostname in (m.source_node, m.dest_node)}
    return sorted(set(client.get_allocations_for_resource_provider(ctx, node.uuid)) - here)


def _drop_provider(client: placement_client.SchedulerReportClient, consumer: str,
                   provider: str) -> None:
    ctx = get_admin_context()
    current = client.get_allocations_for_consumer(ctx, consumer)
    rest = {rp: alloc for rp, alloc in current["allocations"].items() if rp != provider}
    if not rest:
        client.delete_allocation_for_instance(ctx, consumer)
        return
    client.put_allocations(ctx, consumer, rest, current["project_id"], current["user_id"],
                           current["consumer_generation"])


def _heal_missing(client: placement_client.SchedulerReportClient, node: ComputeNode,
                  instance_uuid: str) -> bool:
    instance = instances.instance_get(instance_uuid)
    if instance.flavor is None:
        return False  # nothing known to allocate
    wanted = capacity.requested(instance.flavor, instance.is_volume_backed)
    resources = {rc: int(n) for rc, n in (("VCPU", wanted.vcpus),
                                          ("MEMORY_MB", wanted.memory_mb),
                                          ("DISK_GB", wanted.disk_gb)) if n}
    return client.put_allocations(get_admin_context(), instance_uuid,
                                  {node.uuid: {"resources": resources}},
                                  instance.project_id or "", instance.user_id or "", None)


def audit(heal: bool) -> int:
    client = placement_client.report_client()
    ctx = get_admin_context()
    found = healed = 0
    for node in compute_nodes.compute_node_get_all():
        for consumer in _orphans(client, node):
            found += 1
            print(f"Allocations of {consumer} on {node.hypervisor_hostname} ({node.uuid}) "
                  f"belong to no instance on that node" + ("; removed" if heal else ""))
            if heal:
                _drop_provider(client, consumer, node.uuid)
                healed += 1
        for instance in instances.instance_get_all_by_host(node.host):
            if instance.node != node.hypervisor_hostname or \
                    client.get_allocations_for_consumer(ctx, instance.uuid)["allocations"]:
                continue
            found += 1
            print(f"Instance {instance.uuid} on {node.hypervisor_hostname} holds no "
                  "allocations" + ("; allocated its flavor" if heal else ""))
            if heal and _heal_missing(client, node, instance.uuid):
                healed += 1
    print(f"Found {found} problem(s)" + (f", healed {healed}" if heal else "") +
          ("" if heal or not found else "; run again with --heal to fix them"))
    return HEALED if healed else FOUND if found else 0


def sync_aggregates() -> int:
    client = placement_client.report_client()
    ctx = get_admin_context()
    failed = 0
    for aggregate in aggregates.aggregate_get_all():
        for host in aggregate.hosts:
            try:
                client.aggregate_add_host(ctx, aggregate.uuid, host)
            except exception.NovaliteException as exc:
                failed += 1
                print(f"Could not put {host} into aggregate {aggregate.name}: "
                      f"{exc.format_message()}")
    print("Placement aggregates are in sync" if not failed else f"{failed} host(s) failed")
    return 1 if failed else 0
