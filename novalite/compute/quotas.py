"""Quotas as Nova's default (database) driver applies them: usage counted from the
database when asked, so nothing is reserved or has to be kept in sync; limits are a
user's own (os-quota-sets?user_id=), else the project's own (os-quota-sets), else the
`default` quota class's (os-quota-class-sets), else the [quota] options.
"""

from __future__ import annotations

from collections.abc import Mapping

from novalite import exception
from novalite.conf import CONF
from novalite.db.api import instances, keypairs, server_groups
from novalite.db.api import quotas as quota_db
from novalite.objects.flavor import Flavor

# Nova's quota resources and the [quota] option giving each limit; None marks the
# nova-network leftovers, which are unlimited and never used.
RESOURCES: dict[str, str | None] = {
    "instances": "instances",
    "cores": "cores",
    "ram": "ram",
    "metadata_items": "metadata_items",
    "injected_files": "injected_files",
    "injected_file_content_bytes": "injected_file_content_bytes",
    "injected_file_path_bytes": "injected_file_path_length",
    "key_pairs": "key_pairs",
    "server_groups": "server_groups",
    "server_group_members": "server_group_members",
    "fixed_ips": None,
    "floating_ips": None,
    "security_groups": None,
    "security_group_rules": None,
}


DEFAULT_CLASS = "default"


def _known(values: dict[str, int]) -> dict[str, int]:
    return {k: v for k, v in values.items() if k in RESOURCES}


def _configured() -> dict[str, int]:
    return {name: CONF.quota[option] if option else -1 for name, option in RESOURCES.items()}


def class_limits(class_name: str) -> dict[str, int]:
    return {**_configured(), **_known(quota_db.limits_get(class_name=class_name))}


def defaults() -> dict[str, int]:
    """What a project gets unless it was given its own limits."""
    return class_limits(DEFAULT_CLASS)


def limits(project_id: str | None = None, user_id: str | None = None) -> dict[str, int]:
    return {**_configured(),
            **_known(quota_db.limits_layered(DEFAULT_CLASS, project_id, user_id))}


def project_usage(project_id: str, user_id: str | None = None) -> dict[str, int]:
    """What the project (or one of its users) uses of each resource Nova counts; the
    nova-network and file-injection resources are never used."""
    usage = dict.fromkeys(RESOURCES, 0)
    usage.update(instances.instance_usage(project_id, user_id))
    usage["server_groups"] = server_groups.group_count(project_id)
    if user_id is not None:
        usage["key_pairs"] = keypairs.key_pair_count_by_user(user_id)
    return usage


def check_metadata(metadata: dict[str, str] | None, project_id: str | None = None) -> None:
    """No metadata is within any limit: only metadata given costs the limits' reads."""
    if not metadata:
        return
    allowed = limits(project_id)["metadata_items"]
    if allowed >= 0 and len(metadata or {}) > allowed:
        raise exception.MetadataLimitExceeded(allowed=allowed)


def _deltas(flavor: Flavor, count: int) -> dict[str, int]:
    return {"instances": count, "cores": count * flavor.vcpus,
            "ram": count * flavor.memory_mb}


def _headroom(quotas: dict[str, int], usage: dict[str, int],
              flavor: Flavor) -> dict[str, int]:
    """What is left of each limit; an unlimited cores or ram follows the instances
    headroom (Nova's rule, so that `allowed` below stays meaningful)."""
    headroom = {r: quotas[r] - usage[r] for r in quotas}
    for resource, per_instance in (("cores", flavor.vcpus), ("ram", flavor.memory_mb)):
        if quotas[resource] == -1:
            headroom[resource] = headroom["instances"] * (per_instance or 1)
    return headroom


def _too_many(overs: list[str], requested: Mapping[str, object], used: dict[str, int],
              quotas: dict[str, int]) -> exception.TooManyInstances:
    def join(values: Mapping[str, object]) -> str:
        return ", ".join(str(values[r]) for r in overs)

    return exception.TooManyInstances(overs=", ".join(overs), req=join(requested),
                                      used=join(used), allowed=join(quotas))


def check_instances(project_id: str, flavor: Flavor, min_count: int, max_count: int) -> int:
    """How many of min_count..max_count instances of `flavor` the project may still
    boot (the most that fit); none fitting is Nova's 403 naming the limits exceeded."""
    deltas = _deltas(flavor, max_count)
    found = limits(project_id)
    quotas = {r: found[r] for r in deltas}
    if all(limit < 0 for limit in quotas.values()):
        return max_count  # unlimited: nothing to count against
    usage = instances.instance_usage(project_id)
    overs = [r for r in deltas if quotas[r] >= 0 and usage[r] + deltas[r] > quotas[r]]
    if not overs:
        return max_count
    headroom = _headroom(quotas, usage, flavor)
    allowed = headroom["instances"]
    if flavor.vcpus:
        allowed = min(allowed, headroom["cores"] // flavor.vcpus)
    if flavor.memory_mb:
        allowed = min(allowed, headroom["ram"] // flavor.memory_mb)
    if allowed > 0 and min_count <= allowed <= max_count:
        return check_instances(project_id, flavor, min_count, allowed)
    count = str(min_count) if min_count == max_count else f"{min_count}-{max_count}"
    requested = {**deltas, "instances": count}
    raise _too_many(overs, requested, usage, quotas)


def recheck_instances(project_id: str, flavor: Flavor, count: int) -> None:
    """After creating `count` instances: refuse if concurrent boots together went over
    (the caller removes what it created). Reported as Nova reports it, with the limit
    as the usage."""
    found = limits(project_id)
    quotas = {r: found[r] for r in ("instances", "cores", "ram")}
    if all(limit < 0 for limit in quotas.values()):
        return  # unlimited: nothing to count against
    usage = instances.instance_usage(project_id)
    overs = [r for r in quotas if 0 <= quotas[r] < usage[r]]
    if overs:
        raise _too_many(overs, _deltas(flavor, count), quotas, quotas)
