"""GET /os-hosts through real HTTP, against tempest's schema: the hosts of the enabled
services with their zones, admin only, 404 from 2.43."""

from tests.functional.tempest_schemas import check

MV = "X-OpenStack-Nova-API-Version"


def test_list_by_zone_admin_only_until_2_42(cloud):
    hosts = check(cloud.api.get("/os-hosts"), "v2_1", "hosts", "list_hosts")["hosts"]
    computes = sorted(h["host_name"] for h in hosts if h["service"] == "compute")
    assert computes == ["compute1", "compute2"]
    zone = next(h["zone"] for h in hosts if h["service"] == "compute")
    in_zone = cloud.api.get("/os-hosts", params={"zone": zone}).json()["hosts"]
    assert {h["zone"] for h in in_zone} == {zone}
    assert cloud.api.get("/os-hosts", params={"zone": "nowhere"}).json() == {"hosts": []}
    assert cloud.api.get("/os-hosts", headers={"X-Auth-Token": "alice:p1"}
                         ).status_code == 403
    assert cloud.api.get("/os-hosts", headers={MV: "2.43"}).status_code == 404
    assert cloud.api.get("/os-hosts", headers={MV: "2.42"}).status_code == 200
