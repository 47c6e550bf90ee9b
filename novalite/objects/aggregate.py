"""A host aggregate: a named group of hosts with metadata, as the database layer gives it
to the compute API, the zone lookups and the scheduler's host states (Nova's Aggregate).

One key of the metadata is special: `availability_zone` makes the aggregate a zone, and
a host is in the zones of its aggregates.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime

from novalite.objects import base

AZ_KEY = "availability_zone"


@base.register
class Aggregate(base.NovaliteObject):
    VERSION = "1.0"

    id: int
    uuid: str
    name: str
    hosts: list[str] = dataclasses.field(default_factory=list)  # sorted
    metadata: dict[str, str] = dataclasses.field(default_factory=dict)
    created_at: datetime | None = None
    updated_at: datetime | None = None

    @property
    def availability_zone(self) -> str | None:
        """The zone this aggregate makes, if any."""
        return self.metadata.get(AZ_KEY)
