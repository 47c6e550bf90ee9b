"""Aggregate views: Nova's object fields (deleted ones kept, always empty), uuid at 2.41."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from novalite.objects.aggregate import Aggregate


def timestamp(value: datetime | None) -> str | None:
    """Nova renders these timestamps naive with microseconds."""
    return value.strftime("%Y-%m-%dT%H:%M:%S.%f") if value else None


def show(agg: Aggregate, with_uuid: bool) -> dict[str, Any]:
    view: dict[str, Any] = {
        "id": agg.id,
        "name": agg.name,
        "availability_zone": agg.availability_zone,
        "hosts": agg.hosts,
        "metadata": agg.metadata,
        "created_at": timestamp(agg.created_at),
        "updated_at": timestamp(agg.updated_at),
        "deleted_at": None,
        "deleted": False,
    }
    if with_uuid:
        view["uuid"] = agg.uuid
    return view


def created(agg: Aggregate, with_uuid: bool) -> dict[str, Any]:
    """A create answers without hosts and metadata, as it always has in Nova."""
    view = show(agg, with_uuid)
    del view["hosts"], view["metadata"]
    return view
