"""The instance payloads: InstancePayload (what every instance notification says of the
instance) and its children for create, actions, update, rebuild, rescue, snapshot,
resize_prep and volume attach/detach, with Nova's versions.

Filled from novalite's Instance object. What it does not carry is null where Nova's field
is nullable (reservation_id, display_description, os_type, architecture, kernel_id,
ramdisk_id, progress, instance_name, trusted_image_certificates) and empty where it is a
list (block_devices, shares, tags): the compute service sees no block device mappings,
share mappings or tags.
"""

from __future__ import annotations

import datetime
from typing import Any

from novalite.context import RequestContext
from novalite.notifications.objects.base import Payload, payload
from novalite.notifications.objects.exception import ExceptionPayload
from novalite.notifications.objects.flavor import FlavorPayload
from novalite.notifications.objects.keypair import KeypairPayload
from novalite.objects import states
from novalite.objects.instance import Instance


@payload
class IpPayload(Payload):
    NAME = "IpPayload"
    VERSION = "1.0"

    label: str
    mac: str
    meta: dict[str, str]
    port_uuid: str | None
    version: int
    address: str
    device_name: str | None


@payload
class AuditPeriodPayload(Payload):
    NAME = "AuditPeriodPayload"
    VERSION = "1.0"

    audit_period_beginning: datetime.datetime
    audit_period_ending: datetime.datetime


@payload
class InstanceStateUpdatePayload(Payload):
    NAME = "InstanceStateUpdatePayload"
    VERSION = "1.0"

    old_state: str | None
    state: str | None
    old_task_state: str | None
    new_task_state: str | None


@payload
class InstancePayload(Payload):
    NAME = "InstancePayload"
    # 1.1 locked, display_description; 1.2 auto_disk_config; 1.3 key_name; 1.4
    # block_devices; 1.5 updated_at; 1.6 request_id; 1.7 action_initiator_*; 1.8
    # locked_reason; 1.9 shares
    VERSION = "1.9"

    uuid: str
    user_id: str | None
    tenant_id: str | None
    reservation_id: str | None
    display_name: str | None
    display_description: str | None
    host_name: str | None
    host: str | None
    node: str | None
    os_type: str | None
    architecture: str | None
    availability_zone: str | None
    flavor: FlavorPayload | None
    image_uuid: str | None
    key_name: str | None
    kernel_id: str | None
    ramdisk_id: str | None
    created_at: datetime.datetime | None
    launched_at: datetime.datetime | None
    terminated_at: datetime.datetime | None
    deleted_at: datetime.datetime | None
    updated_at: datetime.datetime | None
    state: str | None
    power_state: str | None
    task_state: str | None
    progress: int | None
    ip_addresses: list[IpPayload]
    block_devices: list[Payload] | None
    metadata: dict[str, str]
    locked: bool
    auto_disk_config: str
    request_id: str | None
    action_initiator_user: str | None
    action_initiator_project: str | None
    locked_reason: str | None
    shares: list[Payload] | None


def instance_fields(ctx: RequestContext | None, instance: Instance) -> dict[str, Any]:
    """InstancePayload's fields for `instance`, acted on under `ctx`. As Nova, a context
    without a user and project (a periodic task's) gives no request_id. A deleted
    instance was terminated when it was deleted (the Instance object carries no
    terminated_at; the delete sets both at once)."""
    user = ctx.user_id if ctx else None
    project = ctx.project_id if ctx else None
    return dict(
        uuid=instance.uuid, user_id=instance.user_id, tenant_id=instance.project_id,
        reservation_id=None, display_name=instance.display_name, display_description=None,
        host_name=instance.hostname, host=instance.host, node=instance.node, os_type=None,
        architecture=None, availability_zone=instance.availability_zone,
        flavor=FlavorPayload.from_flavor(instance.flavor) if instance.flavor else None,
        image_uuid=instance.image_ref, key_name=instance.key_name, kernel_id=None,
        ramdisk_id=None, created_at=instance.created_at, launched_at=instance.launched_at,
        terminated_at=instance.deleted_at if instance.vm_state == states.DELETED else None,
        deleted_at=instance.deleted_at,
        updated_at=instance.updated_at, state=instance.vm_state,
        power_state=states.POWER_STATE_NAMES.get(instance.power_state, "pending"),
        task_state=instance.task_state, progress=None,
        ip_addresses=ip_addresses(instance), block_devices=[],
        metadata=dict(instance.metadata), locked=instance.locked, auto_disk_config="MANUAL",
        request_id=ctx.request_id if ctx and user and project else None,
        action_initiator_user=user, action_initiator_project=project,
        locked_reason=instance.system_metadata.get("locked_reason"), shares=[])


def ip_addresses(instance: Instance) -> list[IpPayload]:
    """One per fixed IP of each port, as Nova's IpPayload.from_network_info."""
    return [IpPayload(label=vif.network.label, mac=vif.address, meta={}, port_uuid=vif.id,
                      version=ip.version, address=ip.address, device_name=vif.devname)
            for vif in instance.network_info for ip in vif.fixed_ips()]


@payload
class InstanceActionPayload(InstancePayload):
    NAME = "InstanceActionPayload"
    VERSION = "1.9"

    fault: ExceptionPayload | None


@payload
class InstanceCreatePayload(InstanceActionPayload):
    NAME = "InstanceCreatePayload"
    VERSION = "1.13"  # 1.11: instance_name; 1.12: locked_reason; 1.13: shares

    keypairs: list[KeypairPayload]
    tags: list[str]
    trusted_image_certificates: list[str] | None
    instance_name: str | None


def instance_keypairs(instance: Instance) -> list[KeypairPayload]:
    """The key pair the instance was booted with, if any."""
    if not (instance.key_name and instance.key_data):
        return []
    return [KeypairPayload.from_public_key(instance.user_id, instance.key_name,
                                           instance.key_data)]


@payload
class InstanceUpdatePayload(InstancePayload):
    NAME = "InstanceUpdatePayload"
    VERSION = "2.1"  # 2.0: bandwidth removed; 2.1: shares

    state_update: InstanceStateUpdatePayload
    audit_period: AuditPeriodPayload
    old_display_name: str | None
    tags: list[str]


@payload
class InstanceActionRebuildPayload(InstanceActionPayload):
    NAME = "InstanceActionRebuildPayload"
    VERSION = "1.10"

    trusted_image_certificates: list[str] | None


@payload
class InstanceActionRescuePayload(InstanceActionPayload):
    NAME = "InstanceActionRescuePayload"
    VERSION = "1.4"

    rescue_image_ref: str | None


@payload
class InstanceActionSnapshotPayload(InstanceActionPayload):
    NAME = "InstanceActionSnapshotPayload"
    VERSION = "1.10"

    snapshot_image_id: str


@payload
class InstanceActionResizePrepPayload(InstanceActionPayload):
    NAME = "InstanceActionResizePrepPayload"
    VERSION = "1.4"

    new_flavor: FlavorPayload | None


@payload
class InstanceActionVolumePayload(InstanceActionPayload):
    NAME = "InstanceActionVolumePayload"
    VERSION = "1.7"

    volume_id: str
