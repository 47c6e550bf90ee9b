"""Servers at the microversions after 2.74, through real HTTP: hostnames (2.90, FQDNs
2.94), the pinned zone (2.96), the image's properties (2.98) and the scheduler hints
(2.100), each checked against tempest's schema of its version."""

import pytest

from novalite.image import db as images
from tests.functional.tempest_schemas import check

MV = "X-OpenStack-Nova-API-Version"
ALICE = {"X-Auth-Token": "alice:proj1"}


def _h(version, who=ALICE):
    return {MV: version, **who}


def _create(cloud, version, **server):
    body = {"server": {"name": "Web Server_1", "flavorRef": "1", "networks": "none",
                       "imageRef": images.DEFAULT_IMAGE_ID, **server}}
    hints = server.pop("hints", None)
    if hints:
        body["os:scheduler_hints"] = hints
        del body["server"]["hints"]
    return cloud.api.post("/servers", json=body, headers=_h(version))


def _boot(cloud, version="2.90", **server):
    response = _create(cloud, version, **server)
    assert response.status_code == 202, response.text
    server_id = response.json()["server"]["id"]
    cloud.wait_status(server_id, "ACTIVE")
    return server_id


def _hostname(cloud, server_id, version):
    shown = cloud.api.get(f"/servers/{server_id}", headers=_h(version)).json()["server"]
    return shown.get("OS-EXT-SRV-ATTR:hostname")


def test_a_hostname_is_the_sanitized_name_unless_chosen_and_everyone_sees_it_from_2_90(
        cloud):
    named = _boot(cloud)
    assert _hostname(cloud, named, "2.89") is None  # an admin-only field before 2.90
    assert _hostname(cloud, named, "2.90") == "web-server-1"
    chosen = _boot(cloud, hostname="db-1")
    assert _hostname(cloud, chosen, "2.90") == "db-1"
    fqdn = _boot(cloud, "2.94", hostname="db-2.example.org")
    assert _hostname(cloud, fqdn, "2.94") == "db-2.example.org"
    renamed = cloud.api.put(f"/servers/{named}", json={"server": {"hostname": "web.lan"}},
                            headers=_h("2.94"))
    assert renamed.json()["server"]["OS-EXT-SRV-ATTR:hostname"] == "web.lan"


@pytest.mark.parametrize(("version", "server", "wanted"), [
    ("2.89", {"hostname": "db-1"}, "Additional properties are not allowed"),
    ("2.90", {"hostname": "db-2.example.org"}, "does not match"),
    ("2.90", {"hostname": "db-1", "max_count": 2},
     "Unable to allocate a single hostname to multiple instances"),
])
def test_hostnames_the_version_does_not_take_are_a_400(cloud, version, server, wanted):
    response = _create(cloud, version, **server)
    assert response.status_code == 400, response.text
    assert wanted in response.json()["badRequest"]["message"]


def test_several_servers_get_numbered_hostnames(cloud):
    response = _create(cloud, "2.90", name="many", min_count=2, max_count=2,
                       return_reservation_id=True)
    reservation = response.json()["reservation_id"]
    cloud.settle()
    listed = cloud.api.get(f"/servers/detail?reservation_id={reservation}",
                           headers=_h("2.90")).json()["servers"]
    assert sorted(s["OS-EXT-SRV-ATTR:hostname"] for s in listed) == ["many-1", "many-2"]


def test_the_pinned_zone_the_image_properties_and_the_hints_are_shown(cloud):
    images.image_update(images.DEFAULT_IMAGE_ID,
                        {"properties": {"hw_machine_type": "q35", "owner_note": "x"}})
    pinned = _boot(cloud, "2.100", availability_zone="nova",
                   hints={"foo": "bar"})
    free = _boot(cloud, "2.100")
    shown = check(cloud.api.get(f"/servers/{pinned}", headers=_h("2.100")), "v2_100",
                  "servers", "get_server")["server"]
    assert shown["pinned_availability_zone"] == "nova"
    assert shown["scheduler_hints"] == {"foo": ["bar"]}
    assert shown["image"]["properties"] == {"hw_machine_type": "q35"}
    listed = check(cloud.api.get("/servers/detail", headers=_h("2.100")), "v2_100",
                   "servers", "list_servers_detail")["servers"]
    by_id = {s["id"]: s for s in listed}
    assert by_id[free]["pinned_availability_zone"] is None
    assert by_id[free]["scheduler_hints"] == {}
    for version, package in (("2.96", "v2_96"), ("2.98", "v2_98")):
        body = check(cloud.api.get(f"/servers/{pinned}", headers=_h(version)), package,
                     "servers", "get_server")["server"]
        assert "scheduler_hints" not in body
        assert ("properties" in body["image"]) == (version == "2.98")
    updated = check(cloud.api.put(f"/servers/{pinned}", json={"server": {"name": "p"}},
                                  headers=_h("2.100")), "v2_100", "servers", "update_server")
    assert updated["server"]["pinned_availability_zone"] == "nova"
