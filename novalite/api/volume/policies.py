"""Cinder's policy rule names and default check strings (cinder/policies), on the
personas novalite.api.policy defines: a project's readers read, its members write, the
admin manages types and sees every project's volumes and their hosts."""

from __future__ import annotations

ADMIN = "rule:context_is_admin"
MEMBER = "rule:project_member_or_admin"
READER = "rule:project_reader_or_admin"

DEFAULTS: dict[str, str] = {
    "volume:create": MEMBER,
    "volume:get": READER,
    "volume:get_all": READER,
    "volume:update": MEMBER,
    "volume:delete": MEMBER,
    "volume:extend": MEMBER,
    "volume:multiattach": MEMBER,
    "volume:multiattach_bootable_volume": MEMBER,
    "volume:get_snapshot": READER,
    "volume:get_all_snapshots": READER,
    "volume:create_snapshot": MEMBER,
    "volume:update_snapshot": MEMBER,
    "volume:delete_snapshot": MEMBER,
    "snapshot_extension:snapshot_actions:update_snapshot_status": MEMBER,
    "volume_extension:extended_snapshot_attributes": READER,
    "volume_extension:volume_tenant_attribute": READER,
    "volume_extension:volume_host_attribute": ADMIN,
    "volume_extension:types_manage": ADMIN,
    "volume_extension:type_get": READER,
    "volume_extension:type_get_all": READER,
    "volume_extension:types_extra_specs:index": READER,
    "volume_extension:types_extra_specs:show": READER,
    "volume_extension:types_extra_specs:create": ADMIN,
    "volume_extension:types_extra_specs:update": ADMIN,
    "volume_extension:types_extra_specs:delete": ADMIN,
    "volume_extension:quotas:show": READER,
    "volume_extension:quotas:update": ADMIN,
    "volume_extension:quotas:delete": ADMIN,
    "limits_extension:used_limits": READER,
    "scheduler_extension:scheduler_stats:get_pools": ADMIN,
    "message:get": READER,
    "message:get_all": READER,
    "message:delete": MEMBER,
    "volume:attachment_create": MEMBER,
    "volume:attachment_update": MEMBER,
    "volume:attachment_delete": MEMBER,
    "volume:attachment_complete": MEMBER,
    "volume_extension:volume_actions:begin_detaching": MEMBER,
    "volume_extension:volume_actions:roll_detaching": MEMBER,
    "volume_extension:volume_actions:upload_image": MEMBER,
    "volume_extension:volume_actions:upload_public": ADMIN,
}
