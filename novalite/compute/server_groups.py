"""Server group rules, where each applies (in Nova they are spread over the compute API,
the scheduler utilities and the compute manager):

- API: `create` a group within the project's quota; `join_requested_group` puts the
  servers of a boot with the `group` hint into the group, within its member quota, and
  gives the request spec its view of the group.
- conductor: `setup_instance_group` refuses a policy whose filter or weigher is not
  enabled, and refreshes the group's members and hosts just before scheduling.
- compute: the late check of a hard policy, in `novalite.compute.group_policy` (the
  compute service never imports the database).

The request spec carries the group as an InstanceGroup (uuid, policy, rules, hosts, members).
A group's creation, deletion and new members are notified as Nova notifies them
(server_group.create, .delete, .add_member).
"""

from __future__ import annotations

import logging
import uuid as uuidlib
from typing import Any

from novalite import exception
from novalite.compute import quotas
from novalite.conf import CONF
from novalite.context import RequestContext
from novalite.db.api import server_groups as db
from novalite.notifications import events
from novalite.notifications.objects.server_group import ServerGroupPayload
from novalite.objects.request_spec import InstanceGroup

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
    project = ctx.require_project_id()
    limit = quotas.limits(project)["server_groups"]
    if _over(limit, db.group_count(project) + 1):
        raise exception.ServerGroupLimitExceeded()
    if rules and policy != "anti-affinity":
        raise exception.Invalid("Only anti-affinity policy supports rules.")
    group = db.group_create(name, project, ctx.user_id, policy, rules)
    if CONF.quota.recheck_quota and _over(limit, db.group_count(project)):
        db.group_delete(group["uuid"])
        raise exception.ServerGroupLimitExceeded()
    events.send("server_group.create", lambda: _payload(group), ctx=ctx)
    return group


def delete(ctx: RequestContext, group: dict[str, Any]) -> None:
    db.group_delete(group["uuid"])
    events.send("server_group.delete", lambda: _payload(group), ctx=ctx)


def _payload(group: dict[str, Any]) -> ServerGroupPayload:
    return ServerGroupPayload.make(group["uuid"], group["name"], group["user_id"],
                                   group["project_id"], group["policy"], group["rules"],
                                   group["members"])


def _is_uuid_like(value: object) -> bool:
    """oslo's is_uuid_like: any spelling uuid.UUID accepts, dashes optional."""
    try:
        canonical = str(value).replace("urn:", "").replace("uuid:", "").strip("{}")
        return uuidlib.UUID(str(value)).hex == canonical.replace("-", "").lower()
    except (TypeError, ValueError, AttributeError):
        return False


def join_requested_group(ctx: RequestContext, scheduler_hints: dict[str, Any] | None,
                         instance_uuids: list[str]) -> InstanceGroup | None:
    """The group the `group` hint names (the caller's project's; any, for admins) gains
    the new instances; returns the request spec's view of it, or None without the hint.
    An unknown group is a 400, a full one a 403, as Nova answers a server create."""
    if not scheduler_hints or "group" not in scheduler_hints:
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
                                       quotas.limits(group["project_id"])[
                                           "server_group_members"])
    except exception.InstanceGroupNotFound as exc:
        raise exception.Invalid(exc.format_message()) from None
    events.send("server_group.add_member", lambda: _payload({**group, "members": members}),
                ctx=ctx)
    return InstanceGroup(uuid=group["uuid"], policy=group["policy"], rules=group["rules"] or {},
                         members=members)


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
    check_policy_supported(group.policy)
    fresh = db.group_scheduling_view(group.uuid)
    if fresh is None:
        return  # deleted meanwhile: schedule with what the request knew, as Nova does
    spec.instance_group = InstanceGroup(
        uuid=group.uuid, policy=fresh["policy"], rules=fresh["rules"] or {},
        members=fresh["members"], hosts=sorted(set(group.hosts) | set(fresh["hosts"])))
