"""What every notification payload is: a typed dataclass that serialises itself in Nova's
versioned-object shape, so a consumer written for Nova's notifications reads ours:

    {"nova_object.name": "FlavorPayload", "nova_object.namespace": "nova",
     "nova_object.version": "1.4", "nova_object.data": {...}}

with nested payloads in the same shape, datetimes as oslo.versionedobjects writes them
(`2012-10-29T13:42:11Z`) and every field present (null where novalite cannot know it, as a
nullable field of Nova's that was set to None). NAME and VERSION are Nova's, from the
version history of the payload in nova/notifications/objects; a field added here without
Nova having it would break that promise, so the field lists follow Nova's exactly.
"""

from __future__ import annotations

import dataclasses
import datetime
from typing import Any, ClassVar, TypeVar, dataclass_transform

from novalite.objects.base import field_names

NAMESPACE = "nova"
P = TypeVar("P", bound="Payload")


@dataclass_transform(kw_only_default=True)
def payload(cls: type[P]) -> type[P]:
    """Class decorator: a payload dataclass (keyword-only fields, so subclasses add theirs
    whatever their defaults)."""
    return dataclasses.dataclass(kw_only=True)(cls)


class Payload:
    """Base of every payload; subclasses are @payload dataclasses naming NAME and VERSION."""

    NAME: ClassVar[str]
    VERSION: ClassVar[str]

    def to_primitive(self) -> dict[str, Any]:
        data = {name: _primitive(getattr(self, name)) for name in field_names(type(self))}
        return {"nova_object.name": self.NAME, "nova_object.namespace": NAMESPACE,
                "nova_object.version": self.VERSION, "nova_object.data": data}


def isotime(moment: datetime.datetime) -> str:
    """oslo.versionedobjects' DateTimeField on the wire: seconds, UTC, a 'Z'."""
    if moment.tzinfo is not None:
        moment = moment.astimezone(datetime.UTC).replace(tzinfo=None)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _primitive(value: Any) -> Any:
    if isinstance(value, Payload):
        return value.to_primitive()
    if isinstance(value, datetime.datetime):
        return isotime(value)
    if isinstance(value, list | tuple):
        return [_primitive(v) for v in value]
    if isinstance(value, dict):
        return {k: _primitive(v) for k, v in value.items()}
    return value
