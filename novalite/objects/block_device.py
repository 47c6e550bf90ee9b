"""A block device mapping as services pass it around (Nova's BlockDeviceMapping object):
one disk of an instance; here a volume attached to it (source and destination `volume`)
or one it boots with (destination `volume`, made from the `image`, `snapshot` or
`blank` source by the compute that builds it, after which volume_id names it), with the
Cinder attachment that reserves the volume for the instance and, once the compute
connected it, the connection info the volume service gave."""

from __future__ import annotations

import datetime
from typing import Any

from novalite.objects import base

VOLUME = "volume"


@base.register
class BlockDeviceMapping(base.NovaliteObject):
    VERSION = "1.1"  # 1.1: image_id, snapshot_id, volume_type

    uuid: str
    instance_uuid: str
    source_type: str = VOLUME
    destination_type: str = VOLUME
    volume_id: str | None = None
    attachment_id: str | None = None
    device_name: str | None = None
    boot_index: int | None = None
    delete_on_termination: bool = False
    tag: str | None = None
    # Cinder's, as Nova keeps it: {"driver_volume_type": ..., "data": {...}}
    connection_info: dict[str, Any] | None = None
    volume_size: int | None = None
    disk_bus: str | None = None
    device_type: str | None = None
    # what the compute makes the volume from when the server is built (Nova's fields)
    image_id: str | None = None
    snapshot_id: str | None = None
    volume_type: str | None = None
    id: int | None = None
    created_at: datetime.datetime | None = None

    @property
    def is_root(self) -> bool:
        return self.boot_index == 0
