"""Per-project limits of the network service (Neutron's quotas API): a row per resource a
project's limit was set for, [QUOTAS] defaults for the rest."""

from __future__ import annotations

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from novalite.db.models import network as m
from novalite.network import common, errors

RESOURCES = tuple(common.QUOTA_MODELS)


def show(s: Session, project_id: str) -> dict[str, int]:
    return {r: common.limit(s, project_id, r) for r in RESOURCES}


def details(s: Session, project_id: str) -> dict[str, dict[str, int]]:
    return {r: {"limit": common.limit(s, project_id, r), "used":
                common.count(s, project_id, r), "reserved": 0} for r in RESOURCES}


def update(s: Session, project_id: str, limits: dict[str, int]) -> dict[str, int]:
    for resource, value in limits.items():
        if resource not in RESOURCES:
            raise errors.InvalidInput(error_message=f"Unrecognized attribute(s) "
                                                    f"'{resource}'")
        if not isinstance(value, int) or isinstance(value, bool) or value < -1:
            raise errors.InvalidInput(error_message=(
                f"'{value}' is not an integer greater or equal to -1"))
        row = s.scalars(select(m.NetworkQuota).where(
            m.NetworkQuota.project_id == project_id,
            m.NetworkQuota.resource == resource)).first()
        if row is None:
            s.add(m.NetworkQuota(project_id=project_id, resource=resource, limit=value))
        else:
            row.limit = value
    s.flush()
    return show(s, project_id)


def reset(s: Session, project_id: str) -> None:
    s.execute(delete(m.NetworkQuota).where(m.NetworkQuota.project_id == project_id))


def projects(s: Session) -> list[str]:
    return sorted(set(s.scalars(select(m.NetworkQuota.project_id))))
