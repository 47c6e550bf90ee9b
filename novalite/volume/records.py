"""What the volume service hands to its API and manager: plain records, never ORM rows."""

from __future__ import annotations

import dataclasses
import datetime
from typing import Any, TypeGuard, TypeVar, cast

# the value of the `multiattach` extra spec that makes a type's volumes multiattach
MULTIATTACH = "<is> True"
T = TypeVar("T")


def visible(row: T | None, project_id: str | None) -> TypeGuard[T]:
    """Whether the row (None: not found) is one `project_id` owns (None: any project's,
    an admin's view): what every read by id of a project's resource checks."""
    return row is not None and (project_id is None or cast(Any, row).project_id == project_id)


@dataclasses.dataclass(frozen=True)
class VolumeType:
    id: str
    name: str
    description: str | None
    is_public: bool
    extra_specs: dict[str, str]
    created_at: datetime.datetime | None


@dataclasses.dataclass(frozen=True)
class Volume:
    id: str
    project_id: str
    user_id: str | None
    name: str | None
    description: str | None
    size: int
    status: str
    availability_zone: str
    host: str | None
    volume_type: VolumeType
    snapshot_id: str | None
    source_volid: str | None
    image_id: str | None
    bootable: bool
    metadata: dict[str, str]
    created_at: datetime.datetime | None
    updated_at: datetime.datetime | None
    attachments: list[Attachment] = dataclasses.field(default_factory=list)

    @property
    def multiattach(self) -> bool:
        """Whether several servers may attach it at once: its type says so (Cinder's
        `multiattach` extra spec), as the type it was created with, which cannot
        change while a volume has it (novalite.volume.volume_types)."""
        return self.volume_type.extra_specs.get("multiattach") == MULTIATTACH


@dataclasses.dataclass(frozen=True)
class Attachment:
    """A volume's attachment to a consumer; `status` is Cinder's attach_status."""

    id: str
    volume_id: str
    project_id: str  # the volume's: who may see and change the attachment
    instance_uuid: str | None
    status: str
    attached_host: str | None
    mountpoint: str | None
    attach_mode: str
    attach_time: datetime.datetime | None
    connector: dict[str, Any] | None
    connection_info: dict[str, Any] | None
    created_at: datetime.datetime | None


@dataclasses.dataclass(frozen=True)
class Message:
    id: str
    project_id: str
    request_id: str | None
    resource_type: str
    resource_uuid: str
    event_id: str
    message_level: str
    user_message: str
    created_at: datetime.datetime
    expires_at: datetime.datetime


@dataclasses.dataclass(frozen=True)
class Snapshot:
    id: str
    project_id: str
    user_id: str | None
    volume_id: str
    volume_size: int
    status: str
    name: str | None
    description: str | None
    metadata: dict[str, str]
    created_at: datetime.datetime | None
    updated_at: datetime.datetime | None
    progress: str | None = None  # as its taker last reported it
