"""User messages: why an asynchronous request on a volume failed, readable by its owner at
/messages (Cinder's user messages API), since a volume's `error` status says nothing more.

Actions and details carry Cinder's ids and texts (cinder/message/message_field.py), so a
message reads, and its event id is built, as Cinder's."""

from __future__ import annotations

import datetime
import uuid

from sqlalchemy import insert, select
from sqlalchemy.orm import Session

from novalite import timeutils
from novalite.db.models import volume as m
from novalite.db.session import Unit
from novalite.volume import errors
from novalite.volume.records import Message, visible

RESOURCE_VOLUME = "VOLUME"
RESOURCE_SNAPSHOT = "VOLUME_SNAPSHOT"
# how long a message is kept (Cinder's [DEFAULT] message_ttl default: 30 days)
TTL = datetime.timedelta(days=30)

ACTIONS = {
    "001": "schedule allocate volume",
    "003": "copy volume to image",
    "005": "copy image to volume",
    "007": "extend volume",
    "008": "create volume from backend storage",
    "009": "create snapshot",
}
SCHEDULE_ALLOCATE_VOLUME = "001"
COPY_VOLUME_TO_IMAGE = "003"
COPY_IMAGE_TO_VOLUME = "005"
EXTEND_VOLUME = "007"
CREATE_VOLUME_FROM_BACKEND = "008"
SNAPSHOT_CREATE = "009"

DETAILS = {
    "001": "An unknown error occurred.",
    "003": "Could not find any available weighted backend.",
    "004": "Failed to upload volume to image at backend.",
    "007": "Image used for creating volume exceeds available space.",
    "009": "Compute service failed to extend volume.",
    "010": "Volume Driver failed to extend volume.",
    "012": "Driver failed to create the volume.",
    "013": "Snapshot failed to create.",
}
UNKNOWN_ERROR = "001"
NO_BACKEND_AVAILABLE = "003"
FAILED_TO_UPLOAD_VOLUME = "004"
NOT_ENOUGH_SPACE_FOR_IMAGE = "007"
NOTIFY_COMPUTE_SERVICE_FAILED = "009"
DRIVER_FAILED_EXTEND = "010"
DRIVER_FAILED_CREATE = "012"
SNAPSHOT_CREATE_ERROR = "013"


def record(row: m.Message) -> Message:
    return Message(row.id, row.project_id, row.request_id, row.resource_type,
                   row.resource_uuid, row.event_id, row.message_level,
                   f"{ACTIONS.get(row.action_id, '')}:{DETAILS[row.detail_id]}",
                   row.created_at, row.expires_at)


_ADD = insert(m.Message.__table__)


def create(s: Unit, project_id: str, request_id: str | None, resource_id: str,
           action_id: str, detail_id: str, resource_type: str = RESOURCE_VOLUME) -> None:
    now = timeutils.utcnow()
    s.connection().execute(_ADD, {
        "id": str(uuid.uuid4()), "project_id": project_id, "request_id": request_id,
        "resource_type": resource_type, "resource_uuid": resource_id,
        "event_id": f"VOLUME_{resource_type}_{action_id}_{detail_id}",
        "message_level": "ERROR", "action_id": action_id, "detail_id": detail_id,
        "created_at": now, "expires_at": now + TTL})


def get_row(s: Session, message_id: str, project_id: str | None) -> m.Message:
    row = s.get(m.Message, message_id)
    if not visible(row, project_id):
        raise errors.MessageNotFound(message_id=message_id)
    return row


def list_messages(s: Session, project_id: str | None) -> list[Message]:
    query = select(m.Message).order_by(m.Message.created_at.desc(), m.Message.id)
    if project_id is not None:
        query = query.where(m.Message.project_id == project_id)
    return [record(row) for row in s.scalars(query)]
