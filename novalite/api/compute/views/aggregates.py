"""Aggregate views: Nova's object fields (deleted ones kept, always empty), uuid at 2.41."""

from __future__ import annotations

from typing import Any


def timestamp(value) -> str | None:
    """Nova renders these timestamps naive with microseconds."""
    return value.strftime("%Y-%m-%dT%H:%M:%S.%f") if value else None


def show(agg: dict[str, Any], with_uuid: bool) -> dict:
    view = {
        "id": agg["id"],
        "name": agg["name"],
        "availability_zone": agg["metadata"].get("availability_zone"),
        "hosts": agg["hosts"],
        "metadata": agg["metadata"],
        "created_at": timestamp(agg["created_at"]),
        "updated_at": timestamp(agg["updated_at"]),
        "deleted_at": None,
        "deleted": False,
    }
    if with_uuid:
        view["uuid"] = agg["uuid"]
    return view


def created(agg: dict[str, Any], with_uuid: bool) -> dict:
    """A create answers without hosts and metadata, as it always has in Nova."""
    view = show(agg, with_uuid)
    del view["hosts"], view["metadata"]
    return view
