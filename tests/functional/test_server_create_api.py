"""POST /servers across microversions: where a server may be sent, and what each version
adds to or requires of the body."""

import json

import pytest

from novalite.context import get_admin_context
from novalite.image import db as images

MV = "X-OpenStack-Nova-API-Version"
NOBODY_FITS = json.dumps([">=", "$free_ram_mb", 10 ** 9])  # a query hint no host passes


@pytest.fixture
def cloud(conf, cloud_factory):
    conf.set_override("enabled_filters", ["ComputeFilter", "RamFilter", "JsonFilter"],
                      group="filter_scheduler")
    return cloud_factory(hosts=3)


def _create(cloud, version="2.1", token=None, hints=None, **server):
    body = {"server": {"name": "vm", "flavorRef": "1", "imageRef": images.DEFAULT_IMAGE_ID,
                       **server}}
    if hints:
        body["os:scheduler_hints"] = hints
    headers = {MV: version, **({"X-Auth-Token": token} if token else {})}
    return cloud.api.post("/servers", json=body, headers=headers)


def _server_id(response) -> str:
    assert response.status_code == 202, response.text
    return response.json()["server"]["id"]


def test_forced_host_skips_the_filters_for_admins_only(cloud):
    forced = _server_id(_create(cloud, availability_zone="nova:compute2",
                                hints={"query": NOBODY_FITS}))
    server = cloud.wait_status(forced, "ACTIVE", "ERROR")
    assert (server["status"], server["OS-EXT-SRV-ATTR:host"]) == ("ACTIVE", "compute2")
    assert server["OS-EXT-AZ:availability_zone"] == "nova"

    by_node = _server_id(_create(cloud, availability_zone="nova::compute3"))
    assert cloud.wait_status(by_node, "ACTIVE")["OS-EXT-SRV-ATTR:hypervisor_hostname"] \
        == "compute3"

    refused = _create(cloud, availability_zone="nova:compute2", token="alice:p1")
    assert refused.status_code == 403
    assert refused.json()["forbidden"]["message"] == (
        "Policy doesn't allow os_compute_api:servers:create:forced_host to be performed.")
    unparsable = _create(cloud, availability_zone="a:b:c:d")
    assert unparsable.status_code == 400
    assert "Unable to parse availability_zone" in unparsable.json()["badRequest"]["message"]


def test_requested_host_at_2_74_still_runs_the_filters(cloud):
    chosen = _server_id(_create(cloud, "2.74", host="compute3", networks="none"))
    assert cloud.wait_status(chosen, "ACTIVE")["OS-EXT-SRV-ATTR:host"] == "compute3"
    on_node = _server_id(_create(cloud, "2.74", hypervisor_hostname="compute1",
                                 networks="none"))
    assert cloud.wait_status(on_node, "ACTIVE")["OS-EXT-SRV-ATTR:host"] == "compute1"

    judged = _server_id(_create(cloud, "2.74", host="compute3", networks="none",
                                hints={"query": NOBODY_FITS}))
    fault = cloud.wait_status(judged, "ERROR")["fault"]["message"]
    assert "1 hosts: JsonFilter removed 1 (compute3)" in fault  # in_tree of its node

    missing = _create(cloud, "2.74", host="compute9", networks="none")
    assert missing.status_code == 400
    assert missing.json()["badRequest"]["message"] == "Compute host compute9 could not be found."
    mismatch = _create(cloud, "2.74", host="compute1", hypervisor_hostname="compute2",
                       networks="none")
    assert mismatch.status_code == 400
    assert _create(cloud, "2.74", host="compute1", networks="none",
                   token="alice:p1").status_code == 403
    too_early = _create(cloud, "2.73", host="compute1", networks="none")
    assert too_early.status_code == 400
    assert "Additional properties are not allowed" in too_early.json()["badRequest"]["message"]


def test_networks_are_required_from_2_37_and_description_exists_from_2_19(cloud):
    missing = _create(cloud, "2.37")
    assert missing.status_code == 400
    assert "'networks' is a required property" in missing.json()["badRequest"]["message"]
    assert _create(cloud, "2.36", networks="auto").status_code == 400  # a list before 2.37
    assert _create(cloud, "2.18", description="no").status_code == 400

    # what `openstack server create` sends: image BDM, networks "auto", its newest version
    # ("auto" takes the project's only network: the admin project gets one first)
    network = cloud.api.post(f"{cloud.base_url}/networking/v2.0/networks",
                             json={"network": {"name": "admin-net"}}).json()["network"]
    cloud.api.post(f"{cloud.base_url}/networking/v2.0/subnets", json={"subnet": {
        "network_id": network["id"], "cidr": "10.1.0.0/24", "ip_version": 4}})
    bdm = [{"uuid": images.DEFAULT_IMAGE_ID, "boot_index": 0, "source_type": "image",
            "destination_type": "local", "delete_on_termination": True}]
    server_id = _server_id(_create(cloud, "2.74", networks="auto", imageRef="",
                                   block_device_mapping_v2=bdm, description="web tier",
                                   min_count=1, max_count=1))
    shown = cloud.api.get(f"/servers/{server_id}", headers={MV: "2.74"}).json()["server"]
    assert shown["description"] == "web tier"
    assert shown["flavor"]["original_name"] == "m1.tiny"
    old = cloud.api.get(f"/servers/{server_id}", headers={MV: "2.18"}).json()["server"]
    assert "description" not in old and old["flavor"]["id"] == "1"


def test_an_unknown_status_filter_is_refused_from_2_38(cloud):
    assert cloud.api.get("/servers", params={"status": "BOGUS"},
                         headers={MV: "2.37"}).json() == {"servers": []}
    refused = cloud.api.get("/servers", params={"status": "BOGUS"}, headers={MV: "2.38"})
    assert refused.status_code == 400
    assert refused.json()["badRequest"]["message"] == "Invalid status value: BOGUS"


def test_admins_see_the_host_status_from_2_16(cloud):
    server_id = _server_id(_create(cloud, token="alice:p1"))
    cloud.wait_status(server_id, "ACTIVE")
    admin = cloud.api.get(f"/servers/{server_id}", headers={MV: "2.16"}).json()["server"]
    assert admin["host_status"] == "UP"
    owner = cloud.api.get("/servers/detail", headers={MV: "2.16", "X-Auth-Token": "alice:p1"})
    assert [s["id"] for s in owner.json()["servers"]] == [server_id]
    assert "host_status" not in owner.json()["servers"][0]


def test_a_servers_groups_show_from_2_71(cloud):
    group = cloud.api.post("/os-server-groups", headers={MV: "2.64"}, json={
        "server_group": {"name": "g", "policy": "soft-anti-affinity"}}).json()["server_group"]
    server_id = _server_id(_create(cloud, hints={"group": group["id"]}))
    lone_id = _server_id(_create(cloud))
    shown = cloud.api.get(f"/servers/{server_id}", headers={MV: "2.71"}).json()["server"]
    assert shown["server_groups"] == [group["id"]]
    lone = cloud.api.get(f"/servers/{lone_id}", headers={MV: "2.71"}).json()["server"]
    assert lone["server_groups"] == []
    listed = cloud.api.get("/servers/detail", headers={MV: "2.71"}).json()["servers"]
    assert all("server_groups" not in s for s in listed)  # show only, as in Nova
    before = cloud.api.get(f"/servers/{server_id}", headers={MV: "2.70"}).json()["server"]
    assert "server_groups" not in before


def test_a_config_drive_asked_for_or_forced_is_recorded_and_reaches_the_compute(cloud,
                                                                              conf):
    asked = cloud.boot("cd", config_drive=True, user_data="IyEvYmluL3NoCmVjaG8gaGk=")
    plain = cloud.boot("plain")
    conf.set_override("force_config_drive", True)
    forced = cloud.boot("forced")
    for server_id in (asked, plain, forced):
        cloud.wait_status(server_id, "ACTIVE")

    assert [cloud.server(s)["config_drive"] for s in (asked, plain, forced)] == \
        ["True", "", "True"]
    host = cloud.server(asked)["OS-EXT-SRV-ATTR:host"]
    instance = cloud.compute(host).conductor.instance_get(get_admin_context(), asked)
    assert instance.config_drive == "True" and instance.hostname == "cd"
    assert instance.user_data == "IyEvYmluL3NoCmVjaG8gaGk="
