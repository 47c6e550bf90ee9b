"""Who may call what: Nova's policy rules, enforced by oslo.policy.

Rules carry Nova's names (`os_compute_api:servers:stop`) and Nova's default check strings,
built on the base rules of nova/policies/base.py, so a denial reads as Nova's and an
operator's policy.yaml written for Nova means the same here. Overrides come from the
standard `[oslo_policy] policy_file` (a missing file means "defaults only") and are picked
up when the file changes.
"""

from __future__ import annotations

import dataclasses
import inspect
import os
import threading
import time
from collections.abc import Iterable

from oslo_policy import _checks
from oslo_policy import policy as oslo_policy

from novalite import exception
from novalite.api.faults import HTTPFault
from novalite.api.network.policies import DEFAULTS as NETWORK_DEFAULTS
from novalite.api.volume.policies import DEFAULTS as VOLUME_DEFAULTS
from novalite.conf import CONF
from novalite.context import RequestContext

# The personas every rule is written with (Nova's aliases).
ADMIN = "rule:context_is_admin"
PROJECT_READER_OR_ADMIN = "rule:project_reader_or_admin"
PROJECT_MEMBER_OR_ADMIN = "rule:project_member_or_admin"
# what another service (Cinder) calls with; an admin passes too, as every default lets
# an admin (Nova's own default was admin_api before it was service)
SERVICE_OR_ADMIN = "role:service or rule:context_is_admin"
ANY = "@"

# nova/policies/base.py: what the personas mean. Keystone's implied roles give an admin
# the member and reader roles, and a member the reader role.
BASE_RULES: dict[str, str] = {
    "context_is_admin": "role:admin",
    "project_member_api": "role:member and project_id:%(project_id)s",
    "project_reader_api": "role:reader and project_id:%(project_id)s",
    "project_member_or_admin": "rule:project_member_api or rule:context_is_admin",
    "project_reader_or_admin": "rule:project_reader_api or rule:context_is_admin",
}

DEFAULTS: dict[str, str] = {
    "os_compute_api:servers:index": PROJECT_READER_OR_ADMIN,
    "os_compute_api:servers:detail": PROJECT_READER_OR_ADMIN,
    "os_compute_api:servers:index:get_all_tenants": ADMIN,
    "os_compute_api:servers:detail:get_all_tenants": ADMIN,
    "os_compute_api:servers:allow_all_filters": ADMIN,
    "os_compute_api:servers:show": PROJECT_READER_OR_ADMIN,
    "os_compute_api:servers:show:host_status": ADMIN,
    "os_compute_api:servers:create": PROJECT_MEMBER_OR_ADMIN,
    "os_compute_api:servers:delete": PROJECT_MEMBER_OR_ADMIN,
    "os_compute_api:servers:update": PROJECT_MEMBER_OR_ADMIN,
    "os_compute_api:servers:rebuild": PROJECT_MEMBER_OR_ADMIN,
    "os_compute_api:servers:create_image": PROJECT_MEMBER_OR_ADMIN,
    "os_compute_api:os-shelve:shelve": PROJECT_MEMBER_OR_ADMIN,
    "os_compute_api:os-shelve:shelve_offload": ADMIN,
    "os_compute_api:os-shelve:unshelve": PROJECT_MEMBER_OR_ADMIN,
    "os_compute_api:os-shelve:unshelve_to_host": ADMIN,
    "os_compute_api:os-rescue": PROJECT_MEMBER_OR_ADMIN,
    "os_compute_api:os-unrescue": PROJECT_MEMBER_OR_ADMIN,
    "os_compute_api:os-instance-actions:list": PROJECT_READER_OR_ADMIN,
    "os_compute_api:os-instance-actions:show": PROJECT_READER_OR_ADMIN,
    "os_compute_api:os-instance-actions:events": ADMIN,
    "os_compute_api:os-instance-actions:events:details": ADMIN,
    "os_compute_api:server-metadata:index": PROJECT_READER_OR_ADMIN,
    "os_compute_api:server-metadata:show": PROJECT_READER_OR_ADMIN,
    "os_compute_api:server-metadata:create": PROJECT_MEMBER_OR_ADMIN,
    "os_compute_api:server-metadata:update_all": PROJECT_MEMBER_OR_ADMIN,
    "os_compute_api:server-metadata:update": PROJECT_MEMBER_OR_ADMIN,
    "os_compute_api:server-metadata:delete": PROJECT_MEMBER_OR_ADMIN,
    "os_compute_api:os-server-tags:index": PROJECT_READER_OR_ADMIN,
    "os_compute_api:os-server-tags:show": PROJECT_READER_OR_ADMIN,
    "os_compute_api:os-server-tags:update": PROJECT_MEMBER_OR_ADMIN,
    "os_compute_api:os-server-tags:update_all": PROJECT_MEMBER_OR_ADMIN,
    "os_compute_api:os-server-tags:delete": PROJECT_MEMBER_OR_ADMIN,
    "os_compute_api:os-server-tags:delete_all": PROJECT_MEMBER_OR_ADMIN,
    "os_compute_api:servers:start": PROJECT_MEMBER_OR_ADMIN,
    "os_compute_api:servers:stop": PROJECT_MEMBER_OR_ADMIN,
    "os_compute_api:servers:trigger_crash_dump": PROJECT_MEMBER_OR_ADMIN,
    "os_compute_api:os-admin-password": PROJECT_MEMBER_OR_ADMIN,
    "os_compute_api:os-create-backup": PROJECT_MEMBER_OR_ADMIN,
    "os_compute_api:os-deferred-delete:restore": PROJECT_MEMBER_OR_ADMIN,
    "os_compute_api:os-deferred-delete:force": PROJECT_MEMBER_OR_ADMIN,
    "os_compute_api:os-admin-actions:reset_state": ADMIN,
    "os_compute_api:os-admin-actions:inject_network_info": ADMIN,
    "os_compute_api:servers:reboot": PROJECT_MEMBER_OR_ADMIN,
    "os_compute_api:os-pause-server:pause": PROJECT_MEMBER_OR_ADMIN,
    "os_compute_api:os-pause-server:unpause": PROJECT_MEMBER_OR_ADMIN,
    "os_compute_api:os-suspend-server:suspend": PROJECT_MEMBER_OR_ADMIN,
    "os_compute_api:os-suspend-server:resume": PROJECT_MEMBER_OR_ADMIN,
    "os_compute_api:os-console-output": PROJECT_MEMBER_OR_ADMIN,
    "os_compute_api:os-remote-consoles": PROJECT_MEMBER_OR_ADMIN,
    "os_compute_api:os-console-auth-tokens": ADMIN,
    "os_compute_api:servers:resize": PROJECT_MEMBER_OR_ADMIN,
    "os_compute_api:servers:confirm_resize": PROJECT_MEMBER_OR_ADMIN,
    "os_compute_api:servers:revert_resize": PROJECT_MEMBER_OR_ADMIN,
    "os_compute_api:os-migrate-server:migrate": ADMIN,
    "os_compute_api:os-migrate-server:migrate:host": ADMIN,
    "os_compute_api:os-migrate-server:migrate_live": ADMIN,
    "os_compute_api:os-evacuate": ADMIN,
    "os_compute_api:os-migrations:index": ADMIN,
    "os_compute_api:servers:migrations:index": ADMIN,
    "os_compute_api:servers:migrations:show": ADMIN,
    "os_compute_api:servers:migrations:delete": ADMIN,
    "os_compute_api:servers:migrations:force_complete": ADMIN,
    "os_compute_api:os-extended-server-attributes": ADMIN,
    "os_compute_api:os-aggregates:index": ADMIN,
    "os_compute_api:os-aggregates:create": ADMIN,
    "os_compute_api:os-aggregates:show": ADMIN,
    "os_compute_api:os-aggregates:update": ADMIN,
    "os_compute_api:os-aggregates:delete": ADMIN,
    "os_compute_api:os-aggregates:add_host": ADMIN,
    "os_compute_api:os-aggregates:remove_host": ADMIN,
    "os_compute_api:os-aggregates:set_metadata": ADMIN,
    "compute:aggregates:images": ADMIN,
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
    "os_compute_api:os-server-external-events:create": ADMIN,
    "os_compute_api:ips:index": PROJECT_READER_OR_ADMIN,
    "os_compute_api:ips:show": PROJECT_READER_OR_ADMIN,
    "os_compute_api:os-attach-interfaces:list": PROJECT_READER_OR_ADMIN,
    "os_compute_api:os-attach-interfaces:show": PROJECT_READER_OR_ADMIN,
    "os_compute_api:os-attach-interfaces:create": PROJECT_MEMBER_OR_ADMIN,
    "os_compute_api:os-attach-interfaces:delete": PROJECT_MEMBER_OR_ADMIN,
    "os_compute_api:os-volumes-attachments:index": PROJECT_READER_OR_ADMIN,
    "os_compute_api:os-volumes-attachments:show": PROJECT_READER_OR_ADMIN,
    "os_compute_api:os-volumes-attachments:create": PROJECT_MEMBER_OR_ADMIN,
    "os_compute_api:os-volumes-attachments:update": PROJECT_MEMBER_OR_ADMIN,
    "os_compute_api:os-volumes-attachments:swap": SERVICE_OR_ADMIN,
    "os_compute_api:os-volumes-attachments:delete": PROJECT_MEMBER_OR_ADMIN,
    "os_compute_api:os-assisted-volume-snapshots:create": SERVICE_OR_ADMIN,
    "os_compute_api:os-assisted-volume-snapshots:delete": SERVICE_OR_ADMIN,
    "os_compute_api:os-floating-ips:add": PROJECT_MEMBER_OR_ADMIN,
    "os_compute_api:os-floating-ips:remove": PROJECT_MEMBER_OR_ADMIN,
    "os_compute_api:os-floating-ips:list": PROJECT_READER_OR_ADMIN,
    "os_compute_api:os-floating-ips:show": PROJECT_READER_OR_ADMIN,
    "os_compute_api:os-floating-ips:create": PROJECT_MEMBER_OR_ADMIN,
    "os_compute_api:os-volumes:list": PROJECT_READER_OR_ADMIN,
    "os_compute_api:os-volumes:detail": PROJECT_READER_OR_ADMIN,
    "os_compute_api:os-volumes:show": PROJECT_READER_OR_ADMIN,
    "os_compute_api:os-volumes:create": PROJECT_MEMBER_OR_ADMIN,
    "os_compute_api:os-volumes:delete": PROJECT_MEMBER_OR_ADMIN,
    "os_compute_api:os-volumes:snapshots:list": PROJECT_READER_OR_ADMIN,
    "os_compute_api:os-volumes:snapshots:detail": PROJECT_READER_OR_ADMIN,
    "os_compute_api:os-volumes:snapshots:show": PROJECT_READER_OR_ADMIN,
    "os_compute_api:os-volumes:snapshots:create": PROJECT_MEMBER_OR_ADMIN,
    "os_compute_api:os-volumes:snapshots:delete": PROJECT_MEMBER_OR_ADMIN,
    "os_compute_api:os-floating-ips:delete": PROJECT_MEMBER_OR_ADMIN,
    "os_compute_api:os-floating-ip-pools": ANY,
    "os_compute_api:os-multinic:add": PROJECT_MEMBER_OR_ADMIN,
    "os_compute_api:os-multinic:remove": PROJECT_MEMBER_OR_ADMIN,
    "os_compute_api:os-security-groups:add": PROJECT_MEMBER_OR_ADMIN,
    "os_compute_api:os-security-groups:remove": PROJECT_MEMBER_OR_ADMIN,
    "os_compute_api:os-security-groups:list": PROJECT_READER_OR_ADMIN,
    "os_compute_api:os-security-groups:get": PROJECT_READER_OR_ADMIN,
    "os_compute_api:os-security-groups:show": PROJECT_READER_OR_ADMIN,
    "os_compute_api:os-security-groups:create": PROJECT_MEMBER_OR_ADMIN,
    "os_compute_api:os-security-groups:update": PROJECT_MEMBER_OR_ADMIN,
    "os_compute_api:os-security-groups:delete": PROJECT_MEMBER_OR_ADMIN,
    "os_compute_api:os-security-groups:rule:create": PROJECT_MEMBER_OR_ADMIN,
    "os_compute_api:os-security-groups:rule:delete": PROJECT_MEMBER_OR_ADMIN,
    "os_compute_api:os-networks:list": PROJECT_READER_OR_ADMIN,
    "os_compute_api:os-networks:show": PROJECT_READER_OR_ADMIN,
    "os_compute_api:os-tenant-networks:list": PROJECT_READER_OR_ADMIN,
    "os_compute_api:os-tenant-networks:show": PROJECT_READER_OR_ADMIN,
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
    # Key pairs: Nova's "admin or the key pair's user"; the handlers let the owner through.
    "os_compute_api:os-keypairs:index": ADMIN,
    "os_compute_api:os-keypairs:create": ADMIN,
    "os_compute_api:os-keypairs:show": ADMIN,
    "os_compute_api:os-keypairs:delete": ADMIN,
    "os_compute_api:limits": ANY,
    "os_compute_api:extensions": ANY,
    "os_compute_api:os-server-shares:index": PROJECT_READER_OR_ADMIN,
    "os_compute_api:os-server-shares:create": PROJECT_MEMBER_OR_ADMIN,
    "os_compute_api:os-server-shares:show": PROJECT_READER_OR_ADMIN,
    "os_compute_api:os-server-shares:delete": PROJECT_MEMBER_OR_ADMIN,
    "os_compute_api:os-server-password:show": PROJECT_READER_OR_ADMIN,
    "os_compute_api:os-server-password:clear": PROJECT_MEMBER_OR_ADMIN,
    "compute:server:topology:index": PROJECT_READER_OR_ADMIN,
    "os_compute_api:os-server-diagnostics": ADMIN,
    "os_compute_api:os-lock-server:lock": PROJECT_MEMBER_OR_ADMIN,
    "os_compute_api:os-lock-server:unlock": PROJECT_MEMBER_OR_ADMIN,
    "os_compute_api:os-lock-server:unlock:unlock_override": ADMIN,
    "compute:server:topology:host:index": ADMIN,
    "os_compute_api:limits:other_project": ADMIN,
    "os_compute_api:os-hypervisors:list": ADMIN,
    "os_compute_api:os-hypervisors:list-detail": ADMIN,
    "os_compute_api:os-hypervisors:show": ADMIN,
    "os_compute_api:os-hypervisors:statistics": ADMIN,
    "os_compute_api:os-hypervisors:search": ADMIN,
    "os_compute_api:os-hypervisors:servers": ADMIN,
    "os_compute_api:os-hypervisors:uptime": ADMIN,
    "os_compute_api:os-quota-sets:show": PROJECT_READER_OR_ADMIN,
    "os_compute_api:os-quota-sets:detail": PROJECT_READER_OR_ADMIN,
    "os_compute_api:os-quota-sets:defaults": ANY,
    "os_compute_api:os-quota-sets:update": ADMIN,
    "os_compute_api:os-quota-sets:delete": ADMIN,
    "os_compute_api:os-quota-class-sets:show": ADMIN,
    "os_compute_api:os-quota-class-sets:update": ADMIN,
    "os_compute_api:os-simple-tenant-usage:list": ADMIN,
    "os_compute_api:os-simple-tenant-usage:show": PROJECT_READER_OR_ADMIN,
    "os_compute_api:os-services:list": ADMIN,
    "os_compute_api:os-hosts:list": ADMIN,
    "os_compute_api:os-hosts:show": ADMIN,
    "os_compute_api:os-instance-usage-audit-log:list": ADMIN,
    "os_compute_api:os-instance-usage-audit-log:show": ADMIN,
    "os_compute_api:os-services:update": ADMIN,
    "os_compute_api:os-services:delete": ADMIN,
    # The image API, by Glance's rule names and defaults.
    "add_image": PROJECT_MEMBER_OR_ADMIN,
    "get_image": PROJECT_READER_OR_ADMIN,
    "get_images": PROJECT_READER_OR_ADMIN,
    "modify_image": PROJECT_MEMBER_OR_ADMIN,
    "publicize_image": ADMIN,
    "communitize_image": PROJECT_MEMBER_OR_ADMIN,
    "delete_image": PROJECT_MEMBER_OR_ADMIN,
    "upload_image": PROJECT_MEMBER_OR_ADMIN,
    "download_image": PROJECT_READER_OR_ADMIN,
    "deactivate": ADMIN,
    "reactivate": ADMIN,
    "add_member": PROJECT_MEMBER_OR_ADMIN,
    "delete_member": PROJECT_MEMBER_OR_ADMIN,
    "get_member": PROJECT_READER_OR_ADMIN,
    "get_members": PROJECT_READER_OR_ADMIN,
    "modify_member": PROJECT_MEMBER_OR_ADMIN,
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

DEFAULTS.update(NETWORK_DEFAULTS)
DEFAULTS.update(VOLUME_DEFAULTS)

_lock = threading.Lock()
_SEARCH_EVERY = 1.0  # seconds between looks for a policy file or directory newly placed
_DECISIONS_KEPT = 50_000  # callers x rules x targets; forgotten all at once past it


@dataclasses.dataclass
class _Loaded:
    """An enforcer with the rules read, and what they were read from: oslo.policy looks
    for and stats the files on every check (~0.1 ms, twice per request), so the files are
    looked for at most once a second and only stat'ed per check, and the rules read again
    only when what they came from has changed. A decision depends only on the rule, the
    target and the caller's credentials, so each is kept until the rules change: most
    requests ask the same few (a port's create and its response, seven checks)."""

    policy_file: str
    enforcer: oslo_policy.Enforcer
    paths: tuple[str | None, ...] = ()
    searched: float = -_SEARCH_EVERY
    seen: tuple | None = None
    decisions: dict[tuple, bool] = dataclasses.field(default_factory=dict)

    def decide(self, rule: str, target: dict, ctx: RequestContext) -> bool:
        key = (rule, ctx.user_id, ctx.project_id, tuple(ctx.roles), ctx.is_admin,
               tuple(target.items()))
        try:
            found, kept = self.decisions.get(key), True
        except TypeError:  # a target holding a list or a dict: asked every time
            found, kept = None, False
        if found is None:
            found = bool(self.enforcer.authorize(rule, target, _credentials(ctx),
                                                 do_raise=False))
            if kept:
                if len(self.decisions) >= _DECISIONS_KEPT:
                    self.decisions.clear()
                self.decisions[key] = found
        return found


_loaded: _Loaded | None = None


def _sign_checks(cls: type = _checks.BaseCheck) -> None:
    """Give each kind of check's __call__ its signature up front. oslo.policy asks for it
    (inspect.getfullargspec) at every node of a rule on every check, and working it out
    from the function was most of a check's cost (60 of 80 µs for an admin-only rule);
    a function's own __signature__ is what inspect answers first."""
    call = cls.__dict__.get("__call__")
    if call is not None and getattr(call, "__signature__", None) is None:
        call.__signature__ = inspect.signature(call)
    kinds: list[type] = cls.__subclasses__()
    for kind in kinds:
        _sign_checks(kind)


def _new_enforcer(policy_file: str) -> oslo_policy.Enforcer:
    _sign_checks()  # after any check kind registered since
    enforcer = oslo_policy.Enforcer(CONF, policy_file=policy_file)
    enforcer.register_defaults([oslo_policy.RuleDefault(name, check)
                                for name, check in {**BASE_RULES, **DEFAULTS}.items()])
    return enforcer


def _stamp(path: str | None) -> object:
    """What changes when the file, or a file of the directory, is written."""
    if path is None:
        return None
    try:
        if not os.path.isdir(path):
            return os.stat(path).st_mtime_ns
        return tuple(sorted((e.name, e.stat().st_mtime_ns) for e in os.scandir(path)))
    except OSError:
        return None


def _sources(loaded: _Loaded) -> tuple:
    now = time.monotonic()
    if now - loaded.searched >= _SEARCH_EVERY:
        names = [loaded.policy_file, *CONF.oslo_policy.policy_dirs]
        loaded.paths = tuple(CONF.find_file(name) for name in names)
        loaded.searched = now
    return tuple(_stamp(path) for path in loaded.paths)


def _current() -> _Loaded:
    """One enforcer per configured policy file (a test or a reload may point elsewhere),
    its rules read again (and its decisions forgotten) when the overrides file or
    directories change."""
    global _loaded
    policy_file = CONF.oslo_policy.policy_file
    with _lock:
        if _loaded is None or _loaded.policy_file != policy_file:
            _loaded = _Loaded(policy_file, _new_enforcer(policy_file))
        loaded = _loaded
        sources = _sources(loaded)
        if sources != loaded.seen:
            try:
                loaded.enforcer.load_rules(force_reload=True)
            except Exception as exc:
                _loaded = None  # read it again next time, never fall back to old rules
                raise exception.PolicyFileInvalid(
                    path=loaded.enforcer.policy_path or policy_file, reason=exc) from exc
            loaded.seen = sources
            loaded.decisions = {}
        loaded.enforcer.use_conf = False  # enforce() need not look at the files again
    return loaded


def reset() -> None:
    """Forget the enforcer, so the next check reads the configuration afresh."""
    global _loaded
    with _lock:
        _loaded = None


def _credentials(ctx: RequestContext) -> dict:
    return {"user_id": ctx.user_id, "project_id": ctx.project_id, "roles": ctx.roles,
            "is_admin": ctx.is_admin}


def check_target(ctx: RequestContext, rule: str, target: dict) -> bool:
    """Whether the caller passes `rule` on a target with more than a project (Neutron's
    rules also read the owner of a port's network: `network:project_id`)."""
    return _current().decide(rule, target, ctx)


def passing(ctx: RequestContext, rules: Iterable[str], target: dict) -> set[str]:
    """The rules of `rules` the caller passes on `target`: check_target on each, with the
    enforcer looked up once for them all (a port's response checks five)."""
    loaded = _current()
    return {rule for rule in rules if loaded.decide(rule, target, ctx)}


def project_target(ctx: RequestContext, target_project: str | None = None) -> dict:
    """The target of a resource of `target_project` (by default the caller's own)."""
    return {"project_id": ctx.project_id if target_project is None else target_project,
            "user_id": ctx.user_id}


def check(ctx: RequestContext, rule: str, target_project: str | None = None) -> bool:
    """Whether the caller passes `rule` on a resource of `target_project` (by default
    the caller's own project), for behaviour that varies rather than refuses."""
    return _current().decide(rule, project_target(ctx, target_project), ctx)


def authorize(ctx: RequestContext, rule: str, target_project: str | None = None) -> None:
    """Refuse with Nova's 403 when the caller does not pass `rule`."""
    if not check(ctx, rule, target_project):
        raise HTTPFault(403, f"Policy doesn't allow {rule} to be performed.")


def authorize_target(ctx: RequestContext, rule: str, target: dict) -> None:
    """`authorize` on a target Nova builds itself (an empty one, where it has no
    resource to name)."""
    if not check_target(ctx, rule, target):
        raise HTTPFault(403, f"Policy doesn't allow {rule} to be performed.")
