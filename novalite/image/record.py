"""An image as the image service knows it: Glance's base attributes, its free-form
additional properties and its tags."""

from __future__ import annotations

import dataclasses
import datetime

from novalite.objects.image import ImageMeta

# Attributes a user may set at create time or change by JSON patch.
MUTABLE = ("name", "visibility", "protected", "os_hidden", "disk_format",
           "container_format", "min_disk", "min_ram", "owner")
# Attributes the service sets; clients may read but never write them.
READ_ONLY = ("created_at", "updated_at", "status", "checksum", "os_hash_algo",
             "os_hash_value", "size", "virtual_size", "direct_url", "self", "file",
             "schema", "stores")
RESERVED = ("location", "locations", "deleted", "deleted_at")
# Columns of the images table that are base attributes (os_hidden lives in properties).
COLUMNS = ("name", "status", "visibility", "owner", "disk_format", "container_format",
           "size", "virtual_size", "min_disk", "min_ram", "protected", "checksum",
           "os_hash_algo", "os_hash_value")


@dataclasses.dataclass
class ImageRecord:
    id: str
    name: str | None = None
    status: str = "queued"
    visibility: str = "shared"
    owner: str | None = None
    disk_format: str | None = None
    container_format: str | None = None
    size: int | None = None
    virtual_size: int | None = None
    min_disk: int = 0
    min_ram: int = 0
    protected: bool = False
    os_hidden: bool = False
    checksum: str | None = None
    os_hash_algo: str | None = None
    os_hash_value: str | None = None
    properties: dict[str, str] = dataclasses.field(default_factory=dict)
    tags: list[str] = dataclasses.field(default_factory=list)
    created_at: datetime.datetime | None = None
    updated_at: datetime.datetime | None = None

    def to_meta(self) -> ImageMeta:
        """What compute and the scheduler carry about the image."""
        return ImageMeta(id=self.id, name=self.name, status=self.status,
                         disk_format=self.disk_format,
                         container_format=self.container_format, size=self.size,
                         min_disk=self.min_disk, min_ram=self.min_ram,
                         checksum=self.checksum, properties=dict(self.properties))
