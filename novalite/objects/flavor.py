"""A flavor: the size of a server. Instances keep a snapshot, so later edits don't move them."""

from __future__ import annotations

import dataclasses

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
