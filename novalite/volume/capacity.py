"""What the backend can still hold: its configured size less [DEFAULT] reserved_percentage
and the gigabytes of the volumes placed on it (Cinder's CapacityFilter, for one backend)."""

from __future__ import annotations

import dataclasses
import math

from novalite.conf import CONF


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


def of_backend(allocated_gb: int) -> Capacity:
    return Capacity(CONF.volume_backend_capacity_gb, allocated_gb)
