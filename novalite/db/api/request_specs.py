"""Request specs: kept per instance so reschedules and later moves ask the same question."""

from __future__ import annotations

from sqlalchemy import select

from novalite import exception
from novalite.db import models
from novalite.db.session import reader, retry_on_deadlock, writer
from novalite.objects.request_spec import RequestSpec
from novalite.rpc import serializer


@retry_on_deadlock
def request_spec_create(spec: RequestSpec) -> None:
    with writer() as s:
        s.add(models.RequestSpec(instance_uuid=spec.instance_uuid,
                                 spec=serializer.serialize(spec)))


def request_spec_get(instance_uuid: str) -> RequestSpec:
    with reader() as s:
        row = s.scalar(select(models.RequestSpec).filter_by(instance_uuid=instance_uuid))
        if row is None:
            raise exception.NotFound(f"RequestSpec for instance {instance_uuid} not found")
        return serializer.deserialize(row.spec)
