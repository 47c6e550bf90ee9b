"""ImageMetaPayload and ImageMetaPropsPayload: the image of a request spec."""

from __future__ import annotations

import datetime
from typing import Any

from novalite.notifications.objects.base import NAMESPACE, Payload, payload
from novalite.objects.image import ImageMeta


class ImageMetaPropsPayload(Payload):
    """Only the properties the image has, as Nova sends only the fields that are set
    (so not a dataclass: its fields are the image's)."""

    NAME = "ImageMetaPropsPayload"
    VERSION = "1.19"

    def __init__(self, properties: dict[str, Any]) -> None:
        self.properties = dict(properties)

    def to_primitive(self) -> dict[str, Any]:
        return {"nova_object.name": self.NAME, "nova_object.namespace": NAMESPACE,
                "nova_object.version": self.VERSION, "nova_object.data": self.properties}


@payload
class ImageMetaPayload(Payload):
    NAME = "ImageMetaPayload"
    VERSION = "1.0"

    id: str | None
    name: str | None
    status: str | None
    visibility: str | None
    protected: bool | None
    checksum: str | None
    owner: str | None
    size: int | None
    virtual_size: int | None
    container_format: str | None
    disk_format: str | None
    created_at: datetime.datetime | None
    updated_at: datetime.datetime | None
    tags: list[str] | None
    direct_url: str | None
    min_ram: int | None
    min_disk: int | None
    properties: ImageMetaPropsPayload

    @classmethod
    def from_image(cls, image: ImageMeta) -> ImageMetaPayload:
        """What a request spec keeps of its image; the rest is null, as for an image
        Nova could not read those fields of."""
        return cls(id=image.id, name=image.name, status=image.status, visibility=None,
                   protected=None, checksum=image.checksum, owner=None, size=image.size,
                   virtual_size=None, container_format=image.container_format,
                   disk_format=image.disk_format, created_at=None, updated_at=None,
                   tags=None, direct_url=None, min_ram=image.min_ram,
                   min_disk=image.min_disk,
                   properties=ImageMetaPropsPayload(image.properties))
