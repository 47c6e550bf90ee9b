"""What compute and the scheduler need to know about an image (Nova's ImageMeta)."""

from __future__ import annotations

import dataclasses
from typing import Any

from novalite.objects import base


@base.register
class ImageMeta(base.NovaliteObject):
    VERSION = "1.0"

    id: str
    name: str | None = None
    status: str = "active"
    disk_format: str | None = None
    container_format: str | None = None
    size: int | None = None
    min_disk: int = 0
    min_ram: int = 0
    checksum: str | None = None
    properties: dict[str, Any] = dataclasses.field(default_factory=dict)
