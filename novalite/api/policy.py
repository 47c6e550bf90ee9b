"""Who may call what: Nova's default policy rules for the APIs novalite serves.

Rules are named as Nova names them (`os_compute_api:os-aggregates:index`), so a denial
reads the same as Nova's and an operator recognises the rule. Each default is one of
Nova's check strings; identity brings per-deployment overrides.
"""

from __future__ import annotations

from novalite.api.faults import HTTPFault
from novalite.context import RequestContext

ADMIN = "admin"
PROJECT_READER_OR_ADMIN = "project_reader_or_admin"
PROJECT_MEMBER_OR_ADMIN = "project_member_or_admin"
ANY = "any"

DEFAULTS: dict[str, str] = {
    "os_compute_api:os-aggregates:index": ADMIN,
    "os_compute_api:os-aggregates:create": ADMIN,
    "os_compute_api:os-aggregates:show": ADMIN,
    "os_compute_api:os-aggregates:update": ADMIN,
    "os_compute_api:os-aggregates:delete": ADMIN,
    "os_compute_api:os-aggregates:add_host": ADMIN,
    "os_compute_api:os-aggregates:remove_host": ADMIN,
    "os_compute_api:os-aggregates:set_metadata": ADMIN,
    "os_compute_api:os-availability-zone:list": ANY,
    "os_compute_api:os-availability-zone:detail": ADMIN,
    "os_compute_api:os-server-groups:index": PROJECT_READER_OR_ADMIN,
    "os_compute_api:os-server-groups:index:all_projects": ADMIN,
    "os_compute_api:os-server-groups:show": PROJECT_READER_OR_ADMIN,
    "os_compute_api:os-server-groups:create": PROJECT_MEMBER_OR_ADMIN,
    "os_compute_api:os-server-groups:delete": PROJECT_MEMBER_OR_ADMIN,
    "os_compute_api:os-flavor-manage:create": ADMIN,
    "os_compute_api:os-flavor-manage:update": ADMIN,
    "os_compute_api:os-flavor-manage:delete": ADMIN,
    "os_compute_api:os-flavor-extra-specs:index": PROJECT_READER_OR_ADMIN,
    "os_compute_api:os-flavor-extra-specs:show": PROJECT_READER_OR_ADMIN,
    "os_compute_api:os-flavor-extra-specs:create": ADMIN,
    "os_compute_api:os-flavor-extra-specs:update": ADMIN,
    "os_compute_api:os-flavor-extra-specs:delete": ADMIN,
    "os_compute_api:os-flavor-access": ADMIN,
    "os_compute_api:os-flavor-access:add_tenant_access": ADMIN,
    "os_compute_api:os-flavor-access:remove_tenant_access": ADMIN,
    "os_compute_api:servers:create:forced_host": ADMIN,
    "compute:servers:create:requested_destination": ADMIN,
    # Placement: admin (or service) only, as upstream's defaults.
    "placement:resource_providers:list": ADMIN,
    "placement:resource_providers:create": ADMIN,
    "placement:resource_providers:show": ADMIN,
    "placement:resource_providers:update": ADMIN,
    "placement:resource_providers:delete": ADMIN,
    "placement:resource_providers:inventories:list": ADMIN,
    "placement:resource_providers:inventories:create": ADMIN,
    "placement:resource_providers:inventories:show": ADMIN,
    "placement:resource_providers:inventories:update": ADMIN,
    "placement:resource_providers:inventories:delete": ADMIN,
    "placement:resource_providers:aggregates:list": ADMIN,
    "placement:resource_providers:aggregates:update": ADMIN,
    "placement:resource_providers:usages": ADMIN,
    "placement:resource_providers:traits:list": ADMIN,
    "placement:resource_providers:traits:update": ADMIN,
    "placement:resource_providers:traits:delete": ADMIN,
    "placement:resource_providers:allocations:list": ADMIN,
    "placement:resource_classes:list": ADMIN,
    "placement:resource_classes:create": ADMIN,
    "placement:resource_classes:show": ADMIN,
    "placement:resource_classes:update": ADMIN,
    "placement:resource_classes:delete": ADMIN,
    "placement:traits:list": ADMIN,
    "placement:traits:show": ADMIN,
    "placement:traits:update": ADMIN,
    "placement:traits:delete": ADMIN,
    "placement:allocations:list": ADMIN,
    "placement:allocations:manage": ADMIN,
    "placement:allocation_candidates:list": ADMIN,
    "placement:allocations:update": ADMIN,
    "placement:allocations:delete": ADMIN,
    "placement:usages": ADMIN,
    "placement:reshaper:reshape": ADMIN,
}


def _allowed(ctx: RequestContext, check: str, target_project: str | None) -> bool:
    if ctx.is_admin or "admin" in ctx.roles:
        return True
    if check == ANY:
        return True
    if check == ADMIN:
        return False
    needed = "reader" if check == PROJECT_READER_OR_ADMIN else "member"
    if needed == "reader" and not {"reader", "member"} & set(ctx.roles):
        return False
    if needed == "member" and "member" not in ctx.roles:
        return False
    return target_project is None or target_project == ctx.project_id


def check(ctx: RequestContext, rule: str, target_project: str | None = None) -> bool:
    """Whether the caller passes `rule` (for behaviour that varies rather than refuses)."""
    return _allowed(ctx, DEFAULTS[rule], target_project)


def authorize(ctx: RequestContext, rule: str, target_project: str | None = None) -> None:
    """Refuse with Nova's 403 when the caller does not pass `rule`."""
    if not check(ctx, rule, target_project):
        raise HTTPFault(403, f"Policy doesn't allow {rule} to be performed.")
