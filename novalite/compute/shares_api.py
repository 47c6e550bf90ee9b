"""The compute API's side of server shares (Nova's checks in its shares API, its
hardware.check_shares_supported and manila.API.get), before a share is asked of Manila.

A share reaches a guest over virtio-fs, which needs the host to offer it
(COMPUTE_STORAGE_VIRTIO_FS) and the guest's memory to be shareable (a file-backed host,
COMPUTE_MEM_BACKING_FILE, or huge pages asked by the flavor). Nova reads both from
placement, so an operator's traits count here as there; no novalite driver reports them.
Nova's other support check, that every compute is recent enough, has nothing to ask in
novalite: it keeps no deployment-wide service version.

novalite has no shared file system service and no client for one, so the lookup of the
share itself always fails as Nova's does when Manila cannot be reached.
"""

from __future__ import annotations

from typing import NoReturn

from novalite import exception
from novalite.clients import placement as placement_client
from novalite.context import RequestContext
from novalite.db.api import compute_nodes
from novalite.objects import states
from novalite.objects.instance import Instance

VIRTIO_FS = "COMPUTE_STORAGE_VIRTIO_FS"
MEM_BACKING_FILE = "COMPUTE_MEM_BACKING_FILE"

ATTACH = "create share"
DETACH = "delete share"
# Nova checks the vm_state alone: the guest must be off for its devices to change.
ALLOWED = {ATTACH: (states.STOPPED,), DETACH: (states.STOPPED, states.ERROR)}


def check_state(instance: Instance, action: str) -> None:
    if instance.vm_state not in ALLOWED[action]:
        raise exception.InstanceInvalidState(action=action, instance_uuid=instance.uuid,
                                             attr="vm_state", state=instance.vm_state)


def _host_traits(ctx: RequestContext, instance: Instance) -> set[str]:
    nodes = compute_nodes.compute_node_get_by_host(instance.host) if instance.host else []
    node = next((n for n in nodes if n.hypervisor_hostname == instance.node),
                nodes[0] if nodes else None)
    if node is None:
        return set()
    return placement_client.report_client().get_provider_traits(ctx, node.uuid)


def check_supported(ctx: RequestContext, instance: Instance) -> None:
    traits = _host_traits(ctx, instance)
    huge_pages = instance.flavor is not None and \
        "hw:mem_page_size" in instance.flavor.extra_specs
    if VIRTIO_FS not in traits or not (MEM_BACKING_FILE in traits or huge_pages):
        raise exception.ForbiddenSharesNotConfiguredCorrectly()


def attach(ctx: RequestContext, instance: Instance, share_id: str) -> NoReturn:
    """Nova's checks in Nova's order; the last, Manila's answer, is always a failure."""
    check_state(instance, ATTACH)
    check_supported(ctx, instance)
    raise exception.ManilaConnectionFailed(
        reason=f"this cloud has no shared-file-system service (Manila) to look share "
               f"{share_id} up in.")
