"""Volume rows as a manager or a request finds them."""

import uuid

from novalite.db import session
from novalite.volume import errors, states, volume_types, volumes
from novalite.volume.records import MULTIATTACH

MULTIATTACH_TYPE = "multi"


def multiattach_type() -> str:
    """The id of a type whose volumes are multiattach (made once per database)."""
    with session.writer() as s:
        try:
            return volume_types.find(s, MULTIATTACH_TYPE).id
        except errors.VolumeTypeNotFoundByName:
            return volume_types.create(s, MULTIATTACH_TYPE, None, True,
                                       {"multiattach": MULTIATTACH}).id


def make_volume(status: str = states.CREATING, size: int = 1, host: str | None = None,
                multiattach: bool = False, bootable: bool = False) -> str:
    volume_id = str(uuid.uuid4())
    type_id = multiattach_type() if multiattach else None
    with session.writer() as s:
        volumes.create(s, {"id": volume_id, "project_id": "p1", "size": size,
                           "status": status, "availability_zone": "nova", "host": host,
                           "volume_type_id": type_id or volume_types.default(s).id,
                           "volume_metadata": {}, "bootable": bootable})
    return volume_id
