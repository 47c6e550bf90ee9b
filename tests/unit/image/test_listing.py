"""Glance's list semantics over records: parsing, filters, sort order and markers."""

from __future__ import annotations

import datetime

import pytest
from starlette.datastructures import QueryParams

from novalite.image import listing
from novalite.image.record import ImageRecord

T0 = datetime.datetime(2026, 1, 1)


def _image(n: int, **kw) -> ImageRecord:
    return ImageRecord(id=f"id-{n}", name=f"n{n}", created_at=T0 + datetime.timedelta(n),
                       **kw)


def _parse(query: str) -> listing.Query:
    return listing.parse(QueryParams(query), default_limit=25, max_limit=1000)


def _ids(visible: list[ImageRecord], query: str) -> list[str]:
    return [i.id for i in listing.page(visible, _parse(query))[0]]


def test_defaults_newest_first_and_limits_capped():
    query = _parse("limit=5000")
    assert query.limit == 1000
    assert query.sort == [("created_at", "desc"), ("id", "desc")]
    assert _ids([_image(1), _image(3), _image(2)], "") == ["id-3", "id-2", "id-1"]


@pytest.mark.parametrize("query", ["limit=a", "limit=-2", "sort_key=owner", "sort_dir=x",
                                   "sort=name:up", "sort=name&sort_dir=asc",
                                   "protected=maybe", "size_min=x"])
def test_bad_parameters_are_400(query):
    with pytest.raises(listing.BadRequest) as raised:
        _parse(query)
    assert raised.value.code == 400


def test_both_sort_syntaxes():
    visible = [_image(1, size=5), _image(2, size=None), _image(3, size=7)]
    assert _ids(visible, "sort=size:asc") == ["id-2", "id-1", "id-3"]
    assert _ids(visible, "sort_key=size&sort_dir=desc") == ["id-3", "id-1", "id-2"]
    assert _parse("sort=name,size:asc").sort[:2] == [("name", "desc"), ("size", "asc")]


def test_filters_in_operator_tags_properties_and_hidden():
    visible = [_image(1, status="active", tags=["a", "b"], properties={"hw_x": "1"}),
               _image(2, status="queued", tags=["a"]),
               _image(3, status="active", os_hidden=True)]
    assert _ids(visible, "id=in:id-1,id-3") == ["id-1"]
    assert _ids(visible, "status=active") == ["id-1"]
    assert _ids(visible, "status=in:active,queued&sort_key=id&sort_dir=asc") == \
        ["id-1", "id-2"]
    assert _ids(visible, "tag=a&tag=b") == ["id-1"]
    assert _ids(visible, "hw_x=1") == ["id-1"]
    assert _ids(visible, "os_hidden=true") == ["id-3"]
    assert _ids(visible, "name=eq:n2") == ["id-2"]
    assert _ids(visible, "protected=false&sort_key=id&sort_dir=asc") == ["id-1", "id-2"]


def test_markers_and_next_marker():
    visible = [_image(n) for n in range(5)]
    images, marker = listing.page(visible, _parse("limit=2"))
    assert [i.id for i in images] == ["id-4", "id-3"] and marker == "id-3"
    images, marker = listing.page(visible, _parse("limit=2&marker=id-1"))
    assert [i.id for i in images] == ["id-0"] and marker is None
    with pytest.raises(listing.BadRequest):
        listing.page(visible, _parse("marker=unknown"))
