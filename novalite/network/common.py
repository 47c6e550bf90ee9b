"""What every resource shares: lookup within the caller's scope, revision numbers,
`If-Match` compare-and-swap, and quota counting before a create."""

from __future__ import annotations

from typing import Any, TypeVar

from sqlalchemy import bindparam, func, select
from sqlalchemy.orm import Session

from novalite.conf import CONF
from novalite.db.models import network as m
from novalite.network import errors
from novalite.network.scope import Scope
from novalite.timeutils import utcnow

Row = TypeVar("Row")

# resource name (as Neutron's quota API names it) -> model counted
QUOTA_MODELS: dict[str, Any] = {
    "network": m.Network, "subnet": m.Subnet, "port": m.Port, "router": m.Router,
    "floatingip": m.FloatingIP, "security_group": m.SecurityGroup,
    "security_group_rule": m.SecurityGroupRule, "subnetpool": m.SubnetPool,
}

# Built once, as the other statements every port create runs: building a statement and
# its cache key costs more than SQLite takes to run it.
_QUOTAS = m.NetworkQuota.__table__.c
_LIMIT = select(_QUOTAS.limit).where(_QUOTAS.project_id == bindparam("project_id"),
                                     _QUOTAS.resource == bindparam("resource"))
_COUNTS = {resource: select(func.count()).select_from(model)
           .where(model.project_id == bindparam("project_id"))
           for resource, model in QUOTA_MODELS.items()}

# the network service's one availability zone: its agents all run in the network node
AVAILABILITY_ZONE = "nova"


def check_availability_zones(hints: list[str] | None) -> None:
    """Neutron's validate_availability_zones: each hint names a zone that exists."""
    for hint in hints or ():
        if hint != AVAILABILITY_ZONE:
            raise errors.AvailabilityZoneNotFound(availability_zone=hint)


def owned(row: Row | None, scope: Scope, missing: errors.NotFound) -> Row:
    """`row` if the caller may see it as its owner (or an admin); else not found."""
    if row is None or not scope.owns(row.project_id):  # type: ignore[attr-defined]
        raise missing
    return row


def check_revision(row: Any, if_match: str | None) -> None:
    """`If-Match: revision_number=N`: the write happens only at revision N (412 else)."""
    if not if_match:
        return
    for part in if_match.split(","):
        name, _, value = part.strip().partition("=")
        if name == "revision_number":
            if not value.isdigit():
                raise errors.InvalidInput(error_message=f"Invalid If-Match {if_match}")
            if int(value) != row.revision_number:
                raise errors.RevisionNumberConstraintFailed(
                    constraint=value, current=row.revision_number)


def bump(row: Any) -> None:
    row.revision_number += 1
    row.updated_at = utcnow()


def update(row: Any, values: dict[str, Any]) -> None:
    """Set the changed attributes; a change bumps the revision."""
    changed = False
    for key, value in values.items():
        if getattr(row, key) != value:
            setattr(row, key, value)
            changed = True
    if changed:
        bump(row)


def limit(s: Session, project_id: str, resource: str) -> int:
    found: int | None = s.scalar(_LIMIT, {"project_id": project_id, "resource": resource})
    return found if found is not None else getattr(CONF.QUOTAS, f"quota_{resource}")


def count(s: Session, project_id: str, resource: str) -> int:
    return s.scalar(_COUNTS[resource], {"project_id": project_id}) or 0


def check_quota(s: Session, project_id: str, resource: str, adding: int = 1) -> None:
    """Refuse a create that would take the project past its limit (Neutron's 409)."""
    allowed = limit(s, project_id, resource)
    if allowed >= 0 and count(s, project_id, resource) + adding > allowed:
        raise errors.OverQuota(overs=f"['{resource}']")
