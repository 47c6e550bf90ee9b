"""Request specs: kept per instance so reschedules and later moves ask the same question."""

from __future__ import annotations

from sqlalchemy import insert, select, update

from novalite import exception
from novalite.db import models
from novalite.db.session import Unit, reader, writer
from novalite.objects import codec
from novalite.objects.request_spec import RequestSpec

_ADD = insert(models.RequestSpec.__table__)


def add_request_spec(s: Unit, spec: RequestSpec) -> None:
    """Keep `spec` inside the caller's transaction."""
    s.connection().execute(_ADD, {"instance_uuid": spec.instance_uuid,
                                  "spec": codec.serialize(spec)})


def request_spec_get(instance_uuid: str) -> RequestSpec:
    with reader() as s:
        row = s.scalar(select(models.RequestSpec).filter_by(instance_uuid=instance_uuid))
        if row is None:
            raise exception.NotFound(f"RequestSpec for instance {instance_uuid} not found")
        return codec.deserialize(row.spec)


def request_specs_get(instance_uuids: list[str]) -> dict[str, RequestSpec]:
    """The specs of many instances in one query (a server list shows what they asked);
    an instance without one is left out."""
    if not instance_uuids:
        return {}
    with reader() as s:
        rows = s.scalars(select(models.RequestSpec).where(
            models.RequestSpec.instance_uuid.in_(instance_uuids)))
        return {row.instance_uuid: codec.deserialize(row.spec) for row in rows}


def request_spec_save(spec: RequestSpec) -> None:
    """Keep what changed of an instance's spec (a rebuild's new image), for later moves."""
    with writer() as s:
        s.execute(update(models.RequestSpec)
                  .where(models.RequestSpec.instance_uuid == spec.instance_uuid)
                  .values(spec=codec.serialize(spec)))
