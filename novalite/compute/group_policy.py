"""The compute's late check of a hard server group policy (Nova's
_validate_instance_group_policy): a member placed on this host meanwhile by another request
breaks anti-affinity, one placed elsewhere breaks affinity, and the build goes back for a
reschedule. It asks the conductor where the earlier members are, so it needs no database.
"""

from __future__ import annotations

import logging
from typing import Any

from novalite import exception
from novalite.conf import CONF
from novalite.context import RequestContext

LOG = logging.getLogger(__name__)


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
            group.policy not in ("affinity", "anti-affinity"):
        return
    placed = conductor.instance_group_placed_before(ctx, group.uuid, instance_uuid)
    violated = placed and policy_violation(placed, host)
    if violated:
        LOG.info("Instance %s on %s breaks the %s policy of group %s (earlier members on "
                 "%s)", instance_uuid, host, placed["policy"], group.uuid,
                 ", ".join(placed["hosts"]))
        raise exception.GroupAffinityViolation(instance_uuid=instance_uuid, policy=violated)
