"""What a backend can still hold: its configured size less [DEFAULT] reserved_percentage
and the gigabytes of the volumes and snapshots placed on it (Cinder's CapacityFilter, for
one backend). Each volume service runs one backend, named as Cinder names a pool."""

from __future__ import annotations

import dataclasses
import math

from sqlalchemy import bindparam, func, select

from novalite.conf import CONF
from novalite.db.models import volume as m
from novalite.db.session import Unit


@dataclasses.dataclass(frozen=True)
class Capacity:
    total_gb: int
    allocated_gb: int

    @property
    def free_gb(self) -> int:
        reserved = math.ceil(self.total_gb * int(CONF.reserved_percentage) / 100)
        return max(0, self.total_gb - reserved - self.allocated_gb)

    def fits(self, size_gb: int) -> bool:
        return size_gb <= self.free_gb


def pool_name(service_host: str) -> str:
    """The `host@backend#pool` of the volume service on `service_host`."""
    name = CONF.volume_backend_name
    return f"{service_host}@{name}#{name}"


def of_backend(allocated_gb: int) -> Capacity:
    return Capacity(CONF.volume_backend_capacity_gb, allocated_gb)


# The gigabytes the volumes on a backend hold or are about to hold, and their snapshots
# (each a full copy), in one read built once: each volume created reads it.
_ALLOCATED = select(
    select(func.coalesce(func.sum(m.Volume.size), 0))
    .where(m.Volume.host == bindparam("host")).scalar_subquery()
    + select(func.coalesce(func.sum(m.Snapshot.volume_size), 0))
    .join(m.Volume, m.Volume.id == m.Snapshot.volume_id)
    .where(m.Volume.host == bindparam("host")).scalar_subquery())


def of_pool(s: Unit, pool: str) -> Capacity:
    return of_backend(int(s.connection().execute(_ALLOCATED, {"host": pool}).scalar() or 0))
