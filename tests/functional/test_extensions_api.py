"""/extensions through real HTTP: the v2.1 extension list, checked against tempest's
schemas, readable by any user, and Nova's 404 for an alias it does not list."""

from tests.functional.tempest_schemas import check


def test_list_and_show_for_any_user(cloud):
    listed = check(cloud.api.get("/extensions", headers={"X-Auth-Token": "alice:p1"}),
                   "v2_1", "extensions", "list_extensions")["extensions"]
    aliases = [e["alias"] for e in listed]
    assert "os-hypervisors" in aliases and len(aliases) == len(set(aliases))
    shown = cloud.api.get("/extensions/os-hypervisors")
    assert shown.status_code == 200
    assert shown.json()["extension"] == next(e for e in listed
                                             if e["alias"] == "os-hypervisors")


def test_unknown_alias_is_404(cloud):
    missing = cloud.api.get("/extensions/os-no-such")
    assert (missing.status_code, missing.json()["itemNotFound"]["message"]) == (
        404, "The resource could not be found.")
