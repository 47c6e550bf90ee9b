"""AggregatePayload: aggregate.create/delete/update_metadata/update_prop/add_host/
remove_host/cache_images, .start and .end; AggregateCachePayload: one host's
aggregate.cache_images.progress."""

from __future__ import annotations

from novalite.notifications.objects.base import Payload, payload
from novalite.objects.aggregate import Aggregate


@payload
class AggregatePayload(Payload):
    NAME = "AggregatePayload"
    VERSION = "1.1"  # 1.1: id nullable (aggregate.create.start comes before the id)

    id: int | None
    uuid: str
    name: str
    hosts: list[str] | None
    metadata: dict[str, str] | None

    @classmethod
    def from_aggregate(cls, aggregate: Aggregate) -> AggregatePayload:
        return cls(id=aggregate.id, uuid=aggregate.uuid, name=aggregate.name,
                   hosts=list(aggregate.hosts), metadata=dict(aggregate.metadata))


@payload
class AggregateCachePayload(Payload):
    NAME = "AggregateCachePayload"
    VERSION = "1.0"

    id: int
    uuid: str
    name: str
    host: str
    images_cached: list[str]
    images_failed: list[str]
    index: int
    total: int

    @classmethod
    def of(cls, aggregate: Aggregate, host: str, found: dict[str, str], index: int,
           total: int) -> AggregateCachePayload:
        """`found`: the host's {image id: status}; cached and existing ones count as
        cached, anything else (error, unsupported, skipped) as failed, as in Nova."""
        held = [i for i, status in found.items() if status in ("cached", "existing")]
        return cls(id=aggregate.id, uuid=aggregate.uuid, name=aggregate.name, host=host,
                   images_cached=held, images_failed=[i for i in found if i not in held],
                   index=index, total=total)
