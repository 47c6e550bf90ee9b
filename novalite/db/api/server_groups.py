"""Server groups (Nova's instance groups): a policy, its rules, and member instances.

A group is returned as a dict {"id", "uuid", "name", "project_id", "user_id", "policy",
"rules", "members", "created_at"}; `rules` is {} or {"max_server_per_host": N}. Members
are instance uuids in the order they joined; an instance leaves its group when it is
deleted (instances.instance_destroy).
"""

from __future__ import annotations

import datetime
import uuid as uuidlib
from typing import Any

from sqlalchemy import bindparam, delete, func, select

from novalite import exception
from novalite.db import models
from novalite.db.session import reader, retry_on_deadlock, writer

Group = models.InstanceGroup
Member = models.InstanceGroupMember


def _to_dict(row: Group) -> dict[str, Any]:
    policy = row.policies[0] if row.policies else None
    return {"id": row.id, "uuid": row.uuid, "name": row.name, "project_id": row.project_id,
            "user_id": row.user_id, "policy": policy.policy if policy else None,
            "rules": dict(policy.rules or {}) if policy else {},
            "members": [m.instance_uuid for m in sorted(row.members, key=lambda m: m.id)],
            "created_at": row.created_at}


def _get_row(s: Any, uuid: str, project_id: str | None, lock: bool = False) -> Group:
    query = select(Group).filter_by(uuid=uuid)
    if project_id is not None:
        query = query.filter_by(project_id=project_id)
    row = s.scalars(query.with_for_update() if lock else query).first()
    if row is None:
        raise exception.InstanceGroupNotFound(group_uuid=uuid)
    return row


@retry_on_deadlock
def group_create(name: str, project_id: str, user_id: str, policy: str,
                 rules: dict[str, int] | None = None) -> dict[str, Any]:
    with writer() as s:
        row = Group(uuid=str(uuidlib.uuid4()), name=name, project_id=project_id,
                    user_id=user_id,
                    policies=[models.InstanceGroupPolicy(policy=policy, rules=rules or {})],
                    members=[])
        s.add(row)
        s.flush()
        return _to_dict(row)


def group_get(uuid: str, project_id: str | None = None) -> dict[str, Any]:
    """`project_id` scopes the lookup (non-admin callers): another project's group is
    not found, as in Nova."""
    with reader() as s:
        return _to_dict(_get_row(s, uuid, project_id))


def group_get_all(project_id: str | None = None) -> list[dict[str, Any]]:
    query = select(Group).order_by(Group.id)
    if project_id is not None:
        query = query.filter_by(project_id=project_id)
    with reader() as s:
        return [_to_dict(r) for r in s.scalars(query)]


def group_count(project_id: str) -> int:
    with reader() as s:
        return s.scalar(select(func.count(Group.id)).filter_by(project_id=project_id)) or 0


@retry_on_deadlock
def group_delete(uuid: str, project_id: str | None = None) -> None:
    with writer() as s:
        s.delete(_get_row(s, uuid, project_id))  # its policy and members go with it


@retry_on_deadlock
def group_add_members(uuid: str, instance_uuids: list[str],
                      max_members: int | None = None) -> list[str]:
    """Add members and return all of them; with `max_members` (-1: no limit), refuse with
    GroupMemberLimitExceeded rather than go over. The group row is locked for the count
    and the insert (SQLite serialises writers anyway), so concurrent boots into one group
    cannot pass the limit together."""
    with writer() as s:
        row = _get_row(s, uuid, None, lock=True)
        members = list(s.scalars(select(Member.instance_uuid).filter_by(group_id=row.id)
                                 .order_by(Member.id)))
        known = set(members)
        new = [u for u in dict.fromkeys(instance_uuids) if u not in known]
        if max_members is not None and 0 <= max_members < len(members) + len(new):
            raise exception.GroupMemberLimitExceeded()
        s.add_all(Member(group_id=row.id, instance_uuid=u) for u in new)
        return members + new


_REMOVE_MEMBERS = delete(Member.__table__).where(
    Member.instance_uuid.in_(bindparam("uuids", expanding=True)))


def group_remove_members(s: Any, instance_uuids: list[str]) -> None:
    """Within the caller's transaction (instance delete): the instances leave their group."""
    s.connection().execute(_REMOVE_MEMBERS, {"uuids": list(instance_uuids)})


def group_uuids_of_instance(instance_uuid: str) -> list[str]:
    """The groups an instance belongs to (at most one when created through the API)."""
    query = select(Group.uuid).join(Member, Member.group_id == Group.id) \
        .where(Member.instance_uuid == instance_uuid).order_by(Group.id)
    with reader() as s:
        return list(s.scalars(query))


def _placed(s: Any, uuids: list[str]) -> list[Any]:
    """(uuid, host, scheduled_at, id) of the live instances among `uuids` with a host."""
    if not uuids:
        return []
    inst = models.Instance
    return list(s.execute(select(inst.uuid, inst.host, inst.scheduled_at, inst.id).where(
        inst.uuid.in_(uuids), inst.deleted == 0, inst.host.is_not(None))))


def group_scheduling_view(uuid: str) -> dict[str, Any] | None:
    """What the scheduler needs of a group, fresh: {"uuid", "policy", "rules", "members",
    "hosts"} with the hosts of its placed members; None when the group is gone."""
    with reader() as s:
        try:
            group = _to_dict(_get_row(s, uuid, None))
        except exception.InstanceGroupNotFound:
            return None
        hosts = sorted({r.host for r in _placed(s, group["members"])})
    return {"uuid": uuid, "policy": group["policy"], "rules": group["rules"],
            "members": group["members"], "hosts": hosts}


def group_placed_before(uuid: str, instance_uuid: str) -> dict[str, Any] | None:
    """The group's policy and rules, and in `hosts` the host of each other member placed
    before `instance_uuid` (one entry per member: counts matter). "Before" is the order
    of placement, (scheduled_at, id), the same for every instance judging it, so of two
    members racing onto one host exactly the later one sees the other. None when the
    group is gone."""
    with reader() as s:
        try:
            group = _to_dict(_get_row(s, uuid, None))
        except exception.InstanceGroupNotFound:
            return None
        rows = _placed(s, [*group["members"], instance_uuid])

    def order(r: Any) -> tuple:
        return r.scheduled_at or datetime.datetime.min, r.id

    mine = next((order(r) for r in rows if r.uuid == instance_uuid), None)
    hosts = [r.host for r in rows
             if r.uuid != instance_uuid and (mine is None or order(r) < mine)]
    return {"uuid": uuid, "policy": group["policy"], "rules": group["rules"], "hosts": hosts}
