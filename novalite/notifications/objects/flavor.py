"""FlavorPayload: flavor.create/update/delete, and every instance payload's flavor."""

from __future__ import annotations

from novalite.notifications.objects.base import Payload, payload
from novalite.objects.flavor import Flavor


@payload
class FlavorPayload(Payload):
    NAME = "FlavorPayload"
    VERSION = "1.4"  # 1.2: extra_specs, projects; 1.3: both nullable; 1.4: description

    flavorid: str | None
    memory_mb: int | None
    vcpus: int | None
    root_gb: int | None
    ephemeral_gb: int | None
    name: str
    swap: int
    rxtx_factor: float | None
    vcpu_weight: int | None
    disabled: bool
    is_public: bool
    extra_specs: dict[str, str] | None
    projects: list[str] | None
    description: str | None

    @classmethod
    def from_flavor(cls, flavor: Flavor, projects: list[str] | None = None
                    ) -> FlavorPayload:
        """`projects`: the flavor's access list where the emitter has it (the flavor API);
        null elsewhere, as Nova's instance flavors carry none."""
        return cls(flavorid=flavor.flavorid, memory_mb=flavor.memory_mb, vcpus=flavor.vcpus,
                   root_gb=flavor.root_gb, ephemeral_gb=flavor.ephemeral_gb,
                   name=flavor.name, swap=flavor.swap, rxtx_factor=flavor.rxtx_factor,
                   vcpu_weight=flavor.vcpu_weight, disabled=flavor.disabled,
                   is_public=flavor.is_public, extra_specs=dict(flavor.extra_specs),
                   projects=projects, description=flavor.description)
