"""Image lists as Glance answers them: filters, sort order and marker pagination, applied
to the images the caller may see (novalite.image.visibility narrows those in SQL).

Clouds hold few images next to their servers, so the rest runs in Python over the
visible set; it keeps `in:` filters, property filters and mixed sort directions simple.
"""

from __future__ import annotations

import csv
import dataclasses
from collections.abc import Callable
from typing import Any

from novalite.image import errors
from novalite.image.record import ImageRecord

SORT_KEYS = ("name", "status", "container_format", "disk_format", "size", "id",
             "created_at", "updated_at")
SORT_DIRS = ("asc", "desc")
IN_FILTERS = ("id", "name", "status", "container_format", "disk_format")
# Query parameters that are not filters on image attributes.
NOT_FILTERS = ("limit", "marker", "sort_key", "sort_dir", "sort", "member_status",
               "visibility", "tag", "os_hidden", "size_min", "size_max")


class BadRequest(errors.ImageError):
    msg_fmt = "%(reason)s"


@dataclasses.dataclass
class Query:
    filters: dict[str, str] = dataclasses.field(default_factory=dict)
    tags: list[str] = dataclasses.field(default_factory=list)
    sort: list[tuple[str, str]] = dataclasses.field(default_factory=list)
    limit: int = 25
    marker: str | None = None
    os_hidden: bool = False
    size_min: int | None = None
    size_max: int | None = None


def _bool(name: str, value: str) -> bool:
    if value.lower() not in ("true", "false"):
        raise BadRequest(reason=f"Invalid value '{value}' for '{name}' filter. "
                                "Valid values are 'true' or 'false'.")
    return value.lower() == "true"


def _int(name: str, value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise BadRequest(reason=f"{name} param must be an integer") from None
    if number < 0:
        raise BadRequest(reason=f"{name} param must be positive")
    return number


def _sort(params: Any) -> list[tuple[str, str]]:
    """Glance's two syntaxes: `sort=k1:dir,k2` or repeated `sort_key` with `sort_dir`."""
    keys, dirs = params.getlist("sort_key"), params.getlist("sort_dir")
    if "sort" in params:
        if keys or dirs:
            raise BadRequest(reason="Old and new sorting syntax cannot be combined")
        pairs = [p.strip().partition(":") for p in params["sort"].split(",")]
        sort = [(k.strip(), d.strip() or "desc") for k, _, d in pairs]
    else:
        if len(dirs) > max(len(keys), 1):
            raise BadRequest(reason="Number of sort dirs does not match the number of "
                                    "sort keys")
        keys = keys or ["created_at"]
        sort = [(k, dirs[i] if i < len(dirs) else (dirs[0] if dirs else "desc"))
                for i, k in enumerate(keys)]
    for key, direction in sort:
        if key not in SORT_KEYS:
            raise BadRequest(reason=f"Invalid sort key: {key}. It must be one of the "
                                    f"following: {', '.join(SORT_KEYS)}.")
        if direction not in SORT_DIRS:
            raise BadRequest(reason=f"Invalid sort direction: {direction}")
    tail = sort[0][1]
    return sort + [(k, tail) for k in ("created_at", "id") if k not in dict(sort)]


def parse(params: Any, default_limit: int, max_limit: int) -> Query:
    """A list request's query string as a Query; bad values are Glance's 400s."""
    limit = _int("limit", params["limit"]) if "limit" in params else default_limit
    query = Query(sort=_sort(params), limit=min(limit, max_limit),
                  marker=params.get("marker"), tags=[t.strip() for t in params.getlist("tag")])
    if "os_hidden" in params:
        query.os_hidden = _bool("os_hidden", params["os_hidden"])
    if "size_min" in params:
        query.size_min = _int("size_min", params["size_min"])
    if "size_max" in params:
        query.size_max = _int("size_max", params["size_max"])
    query.filters = {k: v for k, v in params.items() if k not in NOT_FILTERS}
    if "protected" in query.filters:
        _bool("protected", query.filters["protected"])
    return query


def _value(image: ImageRecord, key: str) -> Any:
    if key in image.properties:
        return image.properties[key]
    return getattr(image, key, None) if key in ImageRecord.__dataclass_fields__ else None


def _matcher(key: str, wanted: str) -> Callable[[ImageRecord], bool]:
    if key in IN_FILTERS and wanted.startswith("in:"):
        choices = set(next(csv.reader([wanted[3:]], skipinitialspace=True), []))
        return lambda image: _value(image, key) in choices
    wanted = wanted.removeprefix("eq:") if key in IN_FILTERS else wanted
    return lambda image: _shown(_value(image, key)) == wanted


def _shown(value: Any) -> str | None:
    if isinstance(value, bool):
        return str(value).lower()
    return None if value is None else str(value)


def _selected(images: list[ImageRecord], query: Query) -> list[ImageRecord]:
    checks = [_matcher(k, v) for k, v in query.filters.items()]
    checks.append(lambda image: image.os_hidden == query.os_hidden)
    checks.append(lambda image: set(query.tags) <= set(image.tags))
    size_min, size_max = query.size_min, query.size_max
    if size_min is not None:
        checks.append(lambda image: (image.size or 0) >= size_min)
    if size_max is not None:
        checks.append(lambda image: image.size is not None and image.size <= size_max)
    return [image for image in images if all(check(image) for check in checks)]


def _sort_value(value: Any) -> tuple[bool, Any]:
    """Missing values sort as the smallest, as NULLs do in Glance's queries."""
    return (value is not None, value if value is not None else 0)


def _sort_key(key: str) -> Callable[[ImageRecord], tuple[bool, Any]]:
    return lambda image: _sort_value(getattr(image, key))


def _ordered(images: list[ImageRecord], sort: list[tuple[str, str]]) -> list[ImageRecord]:
    ordered = list(images)
    for key, direction in reversed(sort):  # stable sorts, from the last key to the first
        ordered.sort(key=_sort_key(key), reverse=direction == "desc")
    return ordered


def page(visible: list[ImageRecord], query: Query) -> tuple[list[ImageRecord], str | None]:
    """The page the query asks for, and the marker of the next page, if any."""
    selected = _selected(visible, query)
    if query.marker is not None:
        marker = next((i for i in visible if i.id == query.marker), None)
        if marker is None:
            raise BadRequest(reason=f"No image found with ID {query.marker}")
        ordered = _ordered([i for i in selected if i.id != marker.id] + [marker], query.sort)
        ordered = ordered[ordered.index(marker) + 1:]
    else:
        ordered = _ordered(selected, query.sort)
    images = ordered[:query.limit]
    # Glance offers a next page whenever this one is full, even when nothing follows.
    return images, images[-1].id if images and len(images) == query.limit else None
