"""Server group rules, where each applies (in Nova they are spread over the compute API,
the scheduler utilities and the compute manager):

- API: `create` a group within the project's quota; `join_requested_group` puts the
  servers of a boot with the `group` hint into the group, within its member quota, and
  gives the request spec its view of the group.
- conductor: `setup_instance_group` refuses a policy whose filter or weigher is not
  enabled, and refreshes the group's members and hosts just before scheduling.
- compute: `validate_placement`, the late check of a hard policy (a member placed on
  this host meanwhile by another request breaks it), which sends the build back for a
  reschedule.

The request spec carries the group as {"uuid", "policy", "rules", "hosts", "members"}.
"""

from __future__ import annotations

import logging
import uuid as uuidlib
from typing import Any

from novalite import exception
from novalite.conf import CONF
from novalite.context import RequestContext
from novalite.db.api import server_groups as db

LOG = logging.getLogger(__name__)

# The scheduler plugin that enforces each policy, as Nova checks it before scheduling.
ENFORCED_BY = {
    "affinity": ("filter", "ServerGroupAffinityFilter"),
    "anti-affinity": ("filter", "ServerGroupAntiAffinityFilter"),
    "soft-affinity": ("weigher", "ServerGroupSoftAffinityWeigher"),
    "soft-anti-affinity": ("weigher", "ServerGroupSoftAntiAffinityWeigher"),
}


def _over(limit: int, count: int) -> bool:
    return limit >= 0 and count > limit


def create(ctx: RequestContext, name: str, policy: str,
           rules: dict[str, int] | None = None) -> dict[str, Any]:
    """A new group of the caller's project, within [quota] server_groups. As in Nova the
    count is checked before and again after the insert, so concurrent creates cannot
    together pass the limit (at worst both are refused)."""
    limit, project = CONF.quota.server_groups, ctx.project_id
    if _over(limit, db.group_count(project) + 1):
        raise exception.ServerGroupLimitExceeded()
    if rules and policy != "anti-affinity":
        raise exception.Invalid("Only anti-affinity policy supports rules.")
    group = db.group_create(name, project, ctx.user_id, policy, rules)
    if CONF.quota.recheck_quota and _over(limit, db.group_count(project)):
        db.group_delete(group["uuid"])
        raise exception.ServerGroupLimitExceeded()
    return group


def _is_uuid_like(value: object) -> bool:
    """oslo's is_uuid_like: any spelling uuid.UUID accepts, dashes optional."""
    try:
        canonical = str(value).replace("urn:", "").replace("uuid:", "").strip("{}")
        return uuidlib.UUID(str(value)).hex == canonical.replace("-", "").lower()
    except (TypeError, ValueError, AttributeError):
        return False


def join_requested_group(ctx: RequestContext, scheduler_hints: dict[str, Any] | None,
                         instance_uuids: list[str]) -> dict[str, Any] | None:
    """The group the `group` hint names (the caller's project's; any, for admins) gains
    the new instances; returns the request spec's view of it, or None without the hint.
    An unknown group is a 400, a full one a 403, as Nova answers a server create."""
    if "group" not in (scheduler_hints or {}):
        return None
    hint = scheduler_hints["group"]
    # Nova's schema: one uuid, or a list of them (of which the first counts)
    if not (_is_uuid_like(hint) or isinstance(hint, list)
            and all(_is_uuid_like(h) for h in hint)):
        raise exception.ValidationError(
            detail=f"Invalid input for field/attribute group. Value: {hint}. {hint!r} is "
                   "not valid under any of the given schemas")
    if isinstance(hint, list):
        if not hint:
            return None
        hint = hint[0]
    try:
        group = db.group_get(hint, None if ctx.is_admin else ctx.project_id)
        members = db.group_add_members(group["uuid"], instance_uuids,
                                       CONF.quota.server_group_members)
    except exception.InstanceGroupNotFound as exc:
        raise exception.Invalid(exc.format_message()) from None
    return {"uuid": group["uuid"], "policy": group["policy"], "rules": group["rules"],
            "hosts": [], "members": members}


def _weigher_enabled(name: str) -> bool:
    """Nova: every weigher when the built-in set is configured, else the one named."""
    return any(path.endswith(".all_weighers") or path.rsplit(".", 1)[-1] == name
               for path in CONF.filter_scheduler.weight_classes)


def check_policy_supported(policy: str | None) -> None:
    kind, name = ENFORCED_BY.get(policy or "", (None, ""))
    enabled = (name in CONF.filter_scheduler.enabled_filters if kind == "filter"
               else _weigher_enabled(name) if kind == "weigher" else True)
    if not enabled:
        LOG.error("%s not configured: cannot schedule into a %s server group", name, policy)
        raise exception.UnsupportedPolicyException(reason=f"{name} not configured")


def setup_instance_group(spec: Any) -> None:
    """Before scheduling: the policy must be enforceable, and the group's members and the
    hosts they are on are read again (members placed since the boot request count)."""
    group = spec.instance_group
    if not group:
        return
    check_policy_supported(group.get("policy"))
    fresh = db.group_scheduling_view(group["uuid"])
    if fresh is None:
        return  # deleted meanwhile: schedule with what the request knew, as Nova does
    fresh["hosts"] = sorted(set(group.get("hosts") or []) | set(fresh["hosts"]))
    spec.instance_group = fresh


def policy_violation(placed: dict[str, Any], host: str) -> str | None:
    """Which hard policy placing one more member on `host` breaks, given the hosts of the
    members placed before it (one entry per member)."""
    hosts = placed["hosts"]
    if placed["policy"] == "anti-affinity":
        limit = int((placed["rules"] or {}).get("max_server_per_host", 1))
        return "Anti-affinity" if hosts.count(host) >= limit else None
    if placed["policy"] == "affinity":
        return "Affinity" if hosts and host not in hosts else None
    return None


def validate_placement(conductor: Any, ctx: RequestContext, spec: Any, instance_uuid: str,
                       host: str) -> None:
    """The compute's late check (Nova's _validate_instance_group_policy): raise
    GroupAffinityViolation, which reschedules the build, when another request placed a
    member here (anti-affinity) or elsewhere (affinity) since the scheduler chose."""
    group = spec.instance_group
    if not group or CONF.workarounds.disable_group_policy_check_upcall or \
            group.get("policy") not in ("affinity", "anti-affinity"):
        return
    placed = conductor.instance_group_placed_before(ctx, group["uuid"], instance_uuid)
    violated = placed and policy_violation(placed, host)
    if violated:
        LOG.info("Instance %s on %s breaks the %s policy of group %s (earlier members on "
                 "%s)", instance_uuid, host, placed["policy"], group["uuid"],
                 ", ".join(placed["hosts"]))
        raise exception.GroupAffinityViolation(instance_uuid=instance_uuid, policy=violated)
