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
    # identity (Keystone's rule names); owners' own reads are allowed by the handlers
    "identity:validate_token": ADMIN,
    "identity:check_token": ADMIN,
    "identity:revoke_token": ADMIN,
    "identity:list_domains": ADMIN,
    "identity:get_domain": ADMIN,
    "identity:create_domain": ADMIN,
    "identity:list_projects": ADMIN,
    "identity:get_project": ADMIN,
    "identity:create_project": ADMIN,
    "identity:update_project": ADMIN,
    "identity:delete_project": ADMIN,
    "identity:list_users": ADMIN,
    "identity:get_user": ADMIN,
    "identity:create_user": ADMIN,
    "identity:update_user": ADMIN,
    "identity:delete_user": ADMIN,
    "identity:change_password": ADMIN,
    "identity:list_user_projects": ADMIN,
    "identity:list_roles": ADMIN,
    "identity:get_role": ADMIN,
    "identity:create_role": ADMIN,
    "identity:update_role": ADMIN,
    "identity:delete_role": ADMIN,
    "identity:list_implied_roles": ADMIN,
    "identity:get_implied_role": ADMIN,
    "identity:check_implied_role": ADMIN,
    "identity:create_implied_role": ADMIN,
    "identity:delete_implied_role": ADMIN,
    "identity:list_role_inference_rules": ADMIN,
    "identity:create_grant": ADMIN,
    "identity:check_grant": ADMIN,
    "identity:list_grants": ADMIN,
    "identity:revoke_grant": ADMIN,
    "identity:list_role_assignments": ADMIN,
    "identity:list_services": ADMIN,
    "identity:get_service": ADMIN,
    "identity:list_endpoints": ADMIN,
    "identity:get_endpoint": ADMIN,
    "identity:list_regions": ANY,
    "identity:get_region": ANY,
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
