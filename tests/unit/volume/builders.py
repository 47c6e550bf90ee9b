"""Volume rows as a manager or a request finds them."""

import uuid

from novalite.db import session
from novalite.volume import states, volume_types, volumes


def make_volume(status: str = states.CREATING, size: int = 1, host: str | None = None) -> str:
    volume_id = str(uuid.uuid4())
    with session.writer() as s:
        volumes.create(s, {"id": volume_id, "project_id": "p1", "size": size,
                           "status": status, "availability_zone": "nova", "host": host,
                           "volume_type_id": volume_types.default(s).id,
                           "volume_metadata": {}})
    return volume_id
