"""An instance as services pass it around: identity, placement and state, no ORM."""

from __future__ import annotations

import dataclasses
import datetime

from novalite.objects import base
from novalite.objects.device_metadata import DeviceMetadata
from novalite.objects.flavor import Flavor
from novalite.objects.network_info import VIF


@base.register
class Instance(base.NovaliteObject):
    # 1.0: initial; 1.1: locked (the power actions refuse a locked instance);
    # 1.2: network_info (the cached VIFs: which ports the user brought);
    # 1.3: system_metadata (what a shelve remembers: its image, when and where);
    # 1.4: deleted_at (when a soft delete began: the reclaim's clock);
    # 1.5: hostname, key_data, user_data, config_drive (what the guest is told of itself)
    # 1.6: device_metadata (where the guest finds its tagged devices)
    # 1.7: tags (what its notifications show; read only when notifications are sent)
    VERSION = "1.7"

    uuid: str
    display_name: str | None = None
    project_id: str | None = None
    user_id: str | None = None
    image_ref: str | None = None
    flavor: Flavor | None = None
    host: str | None = None
    node: str | None = None
    vm_state: str | None = None
    task_state: str | None = None
    power_state: int = 0
    availability_zone: str | None = None
    key_name: str | None = None
    launch_index: int | None = None
    launched_at: datetime.datetime | None = None
    created_at: datetime.datetime | None = None
    updated_at: datetime.datetime | None = None
    deleted: bool = False
    deleted_at: datetime.datetime | None = None
    locked: bool = False
    metadata: dict[str, str] = dataclasses.field(default_factory=dict)
    network_info: list[VIF] = dataclasses.field(default_factory=list)
    system_metadata: dict[str, str] = dataclasses.field(default_factory=dict)
    hostname: str | None = None
    key_data: str | None = None
    user_data: str | None = None  # base64, as the API took it
    config_drive: str = ""  # "True" when the server has one, as Nova stores it
    # its tagged devices as its virt driver last reported them
    device_metadata: list[DeviceMetadata] = dataclasses.field(default_factory=list)
    tags: list[str] = dataclasses.field(default_factory=list)

    @property
    def is_volume_backed(self) -> bool:
        """Booted from a volume: such a server is recorded without an image (Nova's
        compute_utils.is_volume_backed_instance reads an empty image_ref the same)."""
        return self.image_ref == ""

    def preserved_ports(self) -> set[str]:
        """The ports the user brought, released rather than deleted with the server."""
        return {vif.id for vif in self.network_info if vif.preserve_on_delete}

    def port_tags(self) -> dict[str, str]:
        """The device tags of its ports, by port id, which only the cache keeps."""
        return {vif.id: vif.tag for vif in self.network_info if vif.tag}

    def nic_tags(self) -> dict[str, str | None]:
        """Each NIC's tag by its MAC (how a guest's device names its port)."""
        return {vif.address: vif.tag for vif in self.network_info}
