"""Per-project limits of the volume service (Cinder's quota sets): volumes, snapshots and
gigabytes (of volumes and snapshots together, as Cinder counts them), a row per limit a
project was given and [DEFAULT] quota_<resource> for the rest.

Usage is counted from the rows themselves, rather than from reservations, as Nova's
counting quotas do: checked in the transaction that adds to it, and checked again once
that transaction committed (`recheck`), because on PostgreSQL and MariaDB two requests
can each count before the other's insert; then both see the excess and are undone
(Nova's recheck refuses both racers too). On SQLite writers are serialised and the
recheck could never find anything: it is not made."""

from __future__ import annotations

from typing import Any

from sqlalchemy import bindparam, delete, func, select
from sqlalchemy.orm import Session

from novalite.conf import CONF
from novalite.db.models import volume as m
from novalite.db.session import Unit
from novalite.volume import errors

RESOURCES = ("volumes", "snapshots", "gigabytes")


def defaults() -> dict[str, int]:
    return {r: int(getattr(CONF, f"quota_{r}")) for r in RESOURCES}


# Built once: every volume and snapshot created is checked with these.
_LIMITS = select(m.VolumeQuota.resource, m.VolumeQuota.hard_limit).where(
    m.VolumeQuota.project_id == bindparam("project_id"))


def _totals(model: type[m.Volume] | type[m.Snapshot], size: Any) -> tuple[Any, Any]:
    """How many rows the project has, and how many gigabytes they hold."""
    owned = model.project_id == bindparam("project_id")
    return (select(func.count()).select_from(model).where(owned).scalar_subquery(),
            select(func.coalesce(func.sum(size), 0)).where(owned).scalar_subquery())


_USAGE = select(*_totals(m.Volume, m.Volume.size),
                *_totals(m.Snapshot, m.Snapshot.volume_size))


def limits(s: Unit, project_id: str) -> dict[str, int]:
    own = {resource: limit for resource, limit in s.connection().execute(
        _LIMITS, {"project_id": project_id})}
    return {**defaults(), **{r: v for r, v in own.items() if r in RESOURCES}}


def usage(s: Unit, project_id: str) -> dict[str, int]:
    volumes, volume_gb, snapshots, snapshot_gb = s.connection().execute(
        _USAGE, {"project_id": project_id}).one()
    return {"volumes": int(volumes), "snapshots": int(snapshots),
            "gigabytes": int(volume_gb) + int(snapshot_gb)}


def check(s: Unit, project_id: str, volumes: int = 0, snapshots: int = 0,
          gigabytes: int = 0) -> None:
    """Refuse with Cinder's 413 what would take the project over a limit."""
    _refuse_over(limits(s, project_id), usage(s, project_id), volumes, snapshots, gigabytes)


def recheck(s: Unit, project_id: str, volumes: int = 0, snapshots: int = 0,
            gigabytes: int = 0) -> None:
    """After the commit of what added `volumes`, `snapshots` and `gigabytes`: refuse as
    `check` would have if the project is now over a limit it was adding to (a racing
    request counted before this one's insert)."""
    used = usage(s, project_id)
    before = {"volumes": used["volumes"] - volumes, "snapshots": used["snapshots"] - snapshots,
              "gigabytes": used["gigabytes"] - gigabytes}
    _refuse_over(limits(s, project_id), before, volumes, snapshots, gigabytes)


def _refuse_over(limit: dict[str, int], used: dict[str, int], volumes: int, snapshots: int,
                 gigabytes: int) -> None:

    def over(resource: str, adding: int) -> bool:
        return adding > 0 and limit[resource] != -1 and used[resource] + adding > limit[
            resource]

    if over("gigabytes", gigabytes):
        raise errors.VolumeSizeExceedsAvailableQuota(
            name="gigabytes", requested=gigabytes, quota=limit["gigabytes"],
            consumed=used["gigabytes"])
    if over("volumes", volumes):
        raise errors.VolumeLimitExceeded(allowed=limit["volumes"], name="volumes")
    if over("snapshots", snapshots):
        raise errors.SnapshotLimitExceeded(allowed=limit["snapshots"])


def update(s: Session, project_id: str, values: dict[str, int]) -> dict[str, int]:
    """New limits of RESOURCES (the API validated the names and values)."""
    used = usage(s, project_id)
    for resource, value in values.items():
        if value != -1 and value < used[resource]:
            raise errors.InvalidInput(reason=(
                f"Quota {resource} limit must be equal or greater than existing "
                f"resources. Current usage is {used[resource]} and the requested limit "
                f"is {value}."))
    for resource, value in values.items():
        row = s.scalar(select(m.VolumeQuota).where(m.VolumeQuota.project_id == project_id,
                                                   m.VolumeQuota.resource == resource))
        if row is None:
            s.add(m.VolumeQuota(project_id=project_id, resource=resource, hard_limit=value))
        else:
            row.hard_limit = value
    s.flush()
    return limits(s, project_id)


def reset(s: Session, project_id: str) -> None:
    s.execute(delete(m.VolumeQuota).where(m.VolumeQuota.project_id == project_id))
