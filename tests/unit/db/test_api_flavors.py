"""Flavor queries: create conflicts, hard delete, extra specs and project access, on
each database backend."""

import threading

import pytest

from novalite import exception
from novalite.db.api import flavors
from tests import builders
from tests.statements import statements


def _create(**kw):
    return flavors.flavor_create(builders.flavor(**kw))


def test_create_reports_which_key_is_taken(backend_db):
    _create(extra_specs={"a": "1"})
    with pytest.raises(exception.FlavorIdExists, match="Flavor with ID 1 already exists."):
        _create(name="other")
    with pytest.raises(exception.FlavorExists,
                       match="Flavor with name m1.tiny already exists."):
        _create(flavorid="2")
    assert flavors.flavor_get_by_flavorid("1").extra_specs == {"a": "1"}


def test_private_flavors_are_seen_by_admins_and_projects_given_access(backend_db):
    _create(flavorid="pub", name="pub")
    _create(flavorid="priv", name="priv", is_public=False)
    flavors.flavor_access_add("priv", "p1")

    def ids(**kw):
        return [f.flavorid for f in flavors.flavor_get_all(**kw)]

    assert ids() == ["pub"]
    assert ids(project_id="p1") == ids(is_public=None) == ["priv", "pub"]
    assert ids(project_id="p2") == ["pub"]
    assert ids(is_public=False) == ["priv"]
    assert flavors.flavor_get_by_flavorid("priv", "p1").name == "priv"
    with pytest.raises(exception.FlavorNotFound):
        flavors.flavor_get_by_flavorid("priv", "p2")


def test_a_flavor_reads_with_its_extra_specs_in_one_statement(backend_db):
    """Every boot reads its flavor, as a project (with its access rule) or as an admin."""
    _create(flavorid="priv", is_public=False, extra_specs={"a": "1", "b": "2", "c": "3"})
    flavors.flavor_access_add("priv", "p1")
    for project in (None, "p1"):
        with statements() as seen:
            found = flavors.flavor_get_by_flavorid("priv", project)
        assert found.extra_specs == {"a": "1", "b": "2", "c": "3"}
        assert len([s for s in seen if s.lstrip().startswith("SELECT")]) == 1


def test_a_flavor_read_alone_is_the_one_listed(backend_db):
    """The read of one flavor (Core rows) and the listing (ORM rows) build the same
    flavor, with and without extra specs."""
    _create(flavorid="plain", name="plain", description="d", vcpu_weight=3, disabled=True,
            rxtx_factor=2.5, swap=64, ephemeral_gb=2)
    _create(flavorid="specs", name="specs", extra_specs={"hw:cpu_policy": "dedicated"})
    listed = {f.flavorid: f for f in flavors.flavor_get_all(is_public=None)}
    for flavorid in ("plain", "specs"):
        assert flavors.flavor_get_by_flavorid(flavorid) == listed[flavorid]


def test_listing_filters(backend_db):
    _create(flavorid="b", name="b", memory_mb=100, root_gb=5)
    _create(flavorid="a", name="a", memory_mb=200, root_gb=1, disabled=True)
    assert [f.flavorid for f in flavors.flavor_get_all()] == ["a", "b"]
    assert [f.flavorid for f in flavors.flavor_get_all(disabled=False)] == ["b"]
    assert [f.flavorid for f in flavors.flavor_get_all(min_memory_mb=150)] == ["a"]
    assert [f.flavorid for f in flavors.flavor_get_all(min_root_gb=2)] == ["b"]


def test_extra_specs_update_merges_and_delete_removes_one(backend_db):
    _create(extra_specs={"a": "1", "b": "2"})
    assert flavors.flavor_extra_specs_update("1", {"b": "3", "c": "4"}) == \
        {"a": "1", "b": "3", "c": "4"}
    flavors.flavor_extra_spec_delete("1", "a")
    assert flavors.flavor_get_by_flavorid("1").extra_specs == {"b": "3", "c": "4"}
    with pytest.raises(exception.FlavorExtraSpecsNotFound,
                       match="Flavor 1 has no extra specs with key a."):
        flavors.flavor_extra_spec_delete("1", "a")
    with pytest.raises(exception.FlavorNotFound):
        flavors.flavor_extra_specs_update("nope", {"a": "1"})


def test_access_add_list_remove(backend_db):
    _create(is_public=False)
    assert flavors.flavor_access_add("1", "p1") == ["p1"]
    assert flavors.flavor_access_add("1", "p2") == ["p1", "p2"]
    with pytest.raises(exception.FlavorAccessExists):
        flavors.flavor_access_add("1", "p1")
    assert flavors.flavor_access_remove("1", "p1") == ["p2"]
    with pytest.raises(exception.FlavorAccessNotFound):
        flavors.flavor_access_remove("1", "p1")
    assert flavors.flavor_access_get("1") == ["p2"]
    with pytest.raises(exception.FlavorNotFound):
        flavors.flavor_access_get("nope")


def test_destroy_removes_the_row_its_specs_and_access(backend_db):
    _create(is_public=False, extra_specs={"a": "1"})
    flavors.flavor_access_add("1", "p1")
    assert flavors.flavor_destroy("1").flavorid == "1"
    with pytest.raises(exception.FlavorNotFound):
        flavors.flavor_destroy("1")
    again = _create(is_public=False)  # the same ID and name are free again
    assert again.extra_specs == {} and flavors.flavor_access_get("1") == []


def test_set_description(backend_db):
    _create()
    assert flavors.flavor_set_description("1", "small").description == "small"
    assert flavors.flavor_get_by_flavorid("1").description == "small"


def _race(target, count=8):
    errors = []

    def run(n):
        try:
            target(n)
        except Exception as exc:  # noqa: BLE001 - collected for the assertion
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(n,)) for n in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return errors


def test_concurrent_writers_of_one_new_key_all_succeed(backend_db):
    _create()
    assert _race(lambda n: flavors.flavor_extra_specs_update("1", {"k": str(n)})) == []
    assert list(flavors.flavor_get_by_flavorid("1").extra_specs) == ["k"]


def test_concurrent_grants_of_one_project_add_it_once(backend_db):
    _create(is_public=False)
    errors = _race(lambda n: flavors.flavor_access_add("1", "p1"))
    assert len(errors) == 7 and all(isinstance(e, exception.FlavorAccessExists)
                                    for e in errors)
    assert flavors.flavor_access_get("1") == ["p1"]
