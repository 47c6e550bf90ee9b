"""AggregatePayload: aggregate.create/delete/update_metadata/update_prop/add_host/
remove_host, .start and .end."""

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
