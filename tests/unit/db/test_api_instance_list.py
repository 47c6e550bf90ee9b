"""The server list query: exact, regex and tag filters, sort keys, marker pages."""

import pytest

from novalite import exception
from novalite.db.api import instance_details, instances
from novalite.db.api.instance_list import ServerFilters, instance_list, instance_names
from tests import builders
from tests.statements import statements


def _create(name, tags=(), **values):
    inst = builders.instance()
    data = {"uuid": inst.uuid, "display_name": name, "project_id": "p1", "user_id": "u1",
            "flavor": builders.flavor(), "vm_state": "active", **values}
    instances.instance_create(data, None, list(tags))
    return inst.uuid


def _names(filters=None, sort=(), **kw):
    return [r["display_name"] for r in instance_list(filters or ServerFilters(), list(sort),
                                                       **kw)]


def test_exact_and_regex_filters(db):
    _create("web-1", host="h1")
    _create("db-1", project_id="p2", host="h2")
    assert _names(ServerFilters(exact={"project_id": ["p1"]})) == ["web-1"]
    assert _names(ServerFilters(regex={"display_name": "^db"})) == ["db-1"]
    assert _names(ServerFilters(exact={"host": ["h2"]}, regex={"display_name": "web"})) == []
    assert _names(ServerFilters(matches_nothing=True)) == []


def test_tag_filters(db):
    _create("a", tags=["x", "y"])
    _create("b", tags=["x"])
    _create("c")
    by = lambda **kw: sorted(_names(ServerFilters(**kw)))  # noqa: E731
    assert by(tags=["x", "y"]) == ["a"]
    assert by(tags_any=["y", "x"]) == ["a", "b"]
    assert by(not_tags=["x", "y"]) == ["b", "c"]
    assert by(not_tags_any=["y"]) == ["b", "c"]
    assert instance_details.tags_get(instance_list(ServerFilters(tags=["y"]), [])[0]["uuid"]
                                     ) == ["x", "y"]


def test_sort_keys_and_marker_pages(db):
    for name, host in (("b", "h2"), ("a", "h1"), ("c", "h1")):
        _create(name, host=host)
    assert _names(sort=[("display_name", "asc")]) == ["a", "b", "c"]
    assert _names(sort=[("host", "asc"), ("display_name", "desc")]) == ["c", "a", "b"]
    first = instance_list(ServerFilters(), [("display_name", "asc")], limit=2)
    assert [r["display_name"] for r in first] == ["a", "b"]
    assert _names(sort=[("display_name", "asc")], limit=2, marker=first[-1]["uuid"]) == ["c"]
    with pytest.raises(exception.MarkerNotFound):
        instance_list(ServerFilters(), [], marker="nope")


def test_names_page_as_the_full_list_does(db):
    for name, host in (("b", "h2"), ("a", "h1"), ("c", "h1")):
        _create(name, host=host)
    args = (ServerFilters(exact={"host": ["h1"]}), [("display_name", "desc")])
    assert instance_names(*args) == [{"uuid": r["uuid"], "display_name": r["display_name"]}
                                     for r in instance_list(*args)]
    first = instance_names(ServerFilters(), [("display_name", "asc")], limit=2)
    assert [r["display_name"] for r in instance_names(
        ServerFilters(), [("display_name", "asc")], marker=first[-1]["uuid"])] == ["c"]


def test_default_order_pages_by_keyset(db):
    for name in ("old", "mid", "new"):
        _create(name)
    assert _names() == ["new", "mid", "old"]
    first = instance_list(ServerFilters(), [], limit=1)
    assert _names(limit=5, marker=first[0]["uuid"]) == ["mid", "old"]
    assert _names(ServerFilters(regex={"display_name": "[eo]"}), limit=1,
                  marker=first[0]["uuid"]) == ["old"]


def test_the_names_page_is_one_query_however_many_servers(db):
    """What a client watching its boots polls; with a regular expression too."""
    for i in range(5):
        _create(f"vm-{i}")
    for filters in (ServerFilters(), ServerFilters(regex={"display_name": "-[13]$"})):
        with statements() as seen:
            names = instance_names(filters, [("display_name", "asc")])
        assert len(seen) == 1  # the BEGIN is the dialect's own
        assert [r["display_name"] for r in names] == (
            [f"vm-{i}" for i in range(5)] if not filters.regex else ["vm-1", "vm-3"])
