"""Instances' network info caches (Nova's instance_info_caches)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import insert, select

from novalite.db.models.info_cache import InstanceInfoCache
from novalite.db.session import Unit, reader, retry_on_deadlock, writer

_ADD = insert(InstanceInfoCache.__table__)


def add(s: Unit, instance_uuid: str, network_info: list[dict[str, Any]]) -> None:
    """A new instance's cache, in the transaction that records the instance."""
    s.connection().execute(_ADD, {"instance_uuid": instance_uuid,
                                  "network_info": network_info})


@retry_on_deadlock
def update(instance_uuid: str, network_info: list[dict[str, Any]]) -> None:
    with writer() as s:
        row = s.scalars(select(InstanceInfoCache).filter_by(instance_uuid=instance_uuid)).first()
        if row is None:
            s.add(InstanceInfoCache(instance_uuid=instance_uuid, network_info=network_info))
        else:
            row.network_info = network_info


def get(instance_uuid: str) -> list[dict[str, Any]]:
    with reader() as s:
        found = s.scalar(select(InstanceInfoCache.network_info)
                         .filter_by(instance_uuid=instance_uuid))
        return list(found or [])
