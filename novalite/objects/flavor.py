"""A flavor: the size of a server. Instances keep a snapshot, so later edits don't move them."""

from __future__ import annotations

import dataclasses
import math

from novalite.objects import base


@base.register
class Flavor(base.NovaliteObject):
    VERSION = "1.0"

    flavorid: str
    name: str
    memory_mb: int
    vcpus: int
    root_gb: int = 0
    ephemeral_gb: int = 0
    swap: int = 0
    rxtx_factor: float = 1.0
    vcpu_weight: int | None = None
    disabled: bool = False
    is_public: bool = True
    description: str | None = None
    extra_specs: dict[str, str] = dataclasses.field(default_factory=dict)
    id: int | None = None

    @property
    def disk_mb(self) -> int:
        """Local disk an instance of this flavor takes, in MB, swap counted exactly (what
        Nova's DiskFilter and HostState consume)."""
        return (self.root_gb + self.ephemeral_gb) * 1024 + self.swap

    @property
    def disk_gb(self) -> int:
        """The same in whole GB, swap rounded up: the DISK_GB placement is asked for and
        the resource tracker counts (Nova's resources_from_flavor)."""
        return self.root_gb + self.ephemeral_gb + math.ceil(self.swap / 1024)

    def local_disk_mb(self, volume_backed: bool) -> int:
        """disk_mb of a server that is volume-backed or not: a volume-backed server's
        root disk is its volume (Nova's resources_from_request_spec with is_bfv)."""
        return self.disk_mb - (self.root_gb * 1024 if volume_backed else 0)

    def local_disk_gb(self, volume_backed: bool) -> int:
        """disk_gb, the same way."""
        return self.disk_gb - (self.root_gb if volume_backed else 0)
