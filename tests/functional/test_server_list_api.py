"""The server and flavor list parameters `openstack` sends, and what a create's access
IPs become."""

from novalite.image import db as images

ALICE = {"X-Auth-Token": "alice:p1"}


def _names(cloud, path, headers=None, **params):
    response = cloud.api.get(path, params=params, headers=headers)
    assert response.status_code == 200, response.text
    return sorted(s["name"] for s in response.json()["servers"])


def test_lists_are_per_project_unless_an_admin_asks_for_all(cloud):
    cloud.boot("mine")
    body = {"server": {"name": "hers", "flavorRef": "1", "imageRef": images.DEFAULT_IMAGE_ID}}
    assert cloud.api.post("/servers", json=body, headers=ALICE).status_code == 202
    assert _names(cloud, "/servers/detail", deleted="False") == ["mine"]
    assert _names(cloud, "/servers", all_tenants="True") == ["hers", "mine"]
    assert _names(cloud, "/servers/detail", all_tenants="1", project_id="p1") == ["hers"]
    assert _names(cloud, "/servers", all_tenants="false") == ["mine"]
    assert _names(cloud, "/servers", ALICE) == ["hers"]
    refused = cloud.api.get("/servers/detail", params={"all_tenants": "True"}, headers=ALICE)
    assert refused.status_code == 403
    assert refused.json()["forbidden"]["message"] == (
        "Policy doesn't allow os_compute_api:servers:detail:get_all_tenants to be performed.")
    bad = cloud.api.get("/servers", params={"all_tenants": "maybe"})
    assert bad.status_code == 400 and "Unrecognized value 'maybe'" in bad.text


def test_name_is_a_regular_expression_and_deleted_is_for_admins(cloud):
    gone = cloud.boot("web-1")
    cloud.boot("web-2")
    cloud.boot("db-1")
    assert _names(cloud, "/servers/detail", name="web") == ["web-1", "web-2"]
    assert _names(cloud, "/servers", name="^db-1$") == ["db-1"]
    bad = cloud.api.get("/servers", params={"name": "web["})
    assert bad.status_code == 400
    assert "Invalid input for query parameters name." in bad.json()["badRequest"]["message"]
    cloud.wait_status(gone, "ACTIVE")
    assert cloud.api.delete(f"/servers/{gone}").status_code == 204
    cloud.wait_gone(gone)
    assert _names(cloud, "/servers/detail", deleted="True") == ["web-1"]
    assert "web-1" not in _names(cloud, "/servers/detail", deleted="False")


def test_access_ips_come_back_normalized(cloud):
    server_id = cloud.boot(accessIPv4="192.168.0.10",
                           accessIPv6="0000:0000:0000:0000:0000:babe:220.12.22.2")
    server = cloud.server(server_id)
    assert (server["accessIPv4"], server["accessIPv6"]) == ("192.168.0.10",
                                                            "::babe:dc0c:1602")
    body = {"server": {"name": "x", "flavorRef": "1", "imageRef": images.DEFAULT_IMAGE_ID,
                       "accessIPv4": "1.2.3"}}
    bad = cloud.api.post("/servers", json=body)
    assert bad.status_code == 400
    assert bad.json()["badRequest"]["message"].endswith("'1.2.3' is not a 'ipv4'")


def test_flavor_lists_take_is_public_as_openstack_sends_it(cloud):
    for value in ("None", "True", "False"):
        response = cloud.api.get("/flavors/detail", params={"is_public": value},
                                 headers={"X-OpenStack-Nova-API-Version": "2.61"})
        assert response.status_code == 200, response.text
    user = cloud.api.get("/flavors/detail", params={"is_public": "None"}, headers=ALICE)
    assert user.status_code == 200 and user.json()["flavors"]
