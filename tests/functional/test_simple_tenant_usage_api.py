"""/os-simple-tenant-usage through real HTTP, checked against tempest's schemas: hours
of each project's servers over a period, detailed, paged from 2.40."""

import datetime

from tests.functional.tempest_schemas import check

MV = "X-OpenStack-Nova-API-Version"
ALICE = {"X-Auth-Token": "alice:p1"}


def _fault(response, status, name="badRequest"):
    assert response.status_code == status, response.text
    return response.json()[name]["message"]


def _period(hours_back=1, hours_ahead=1):
    now = datetime.datetime.now(datetime.UTC).replace(tzinfo=None)
    fmt = "%Y-%m-%dT%H:%M:%S"
    return {"start": (now - datetime.timedelta(hours=hours_back)).strftime(fmt),
            "end": (now + datetime.timedelta(hours=hours_ahead)).strftime(fmt)}


def test_usage_list_show_and_pages(cloud):
    servers = [cloud.boot(f"u{i}") for i in range(3)]
    for server in servers:
        cloud.wait_status(server, "ACTIVE")
    listed = check(cloud.api.get("/os-simple-tenant-usage",
                                 params={**_period(), "detailed": "1"}),
                   "v2_1", "tenant_usages", "list_tenant_usage")["tenant_usages"]
    assert len(listed) == 1 and len(listed[0]["server_usages"]) == 3
    usage = listed[0]
    assert usage["total_vcpus_usage"] > 0 and usage["total_hours"] > 0
    assert sorted(s["instance_id"] for s in usage["server_usages"]) == sorted(servers)
    shown = check(cloud.api.get(f"/os-simple-tenant-usage/{usage['tenant_id']}",
                                params=_period()),
                  "v2_1", "tenant_usages", "get_tenant_usage")["tenant_usage"]
    assert shown["server_usages"][0]["state"] == "active"
    page = cloud.api.get("/os-simple-tenant-usage", headers={MV: "2.40"},
                         params={**_period(), "detailed": "1", "limit": 2}).json()
    assert len(page["tenant_usages"][0]["server_usages"]) == 2
    assert "marker=" in page["tenant_usages_links"][0]["href"]
    empty = cloud.api.get("/os-simple-tenant-usage/nobody", params=_period()).json()
    assert empty == {"tenant_usage": {}}


def test_errors(cloud):
    assert _fault(cloud.api.get("/os-simple-tenant-usage", params={"start": "yesterday"}),
                  400) == "Datetime is in invalid format"
    assert _fault(cloud.api.get("/os-simple-tenant-usage",
                                params=_period(hours_back=-2)), 400).startswith(
        "Invalid start time.")
    assert _fault(cloud.api.get("/os-simple-tenant-usage", headers=ALICE), 403,
                  "forbidden") == (
        "Policy doesn't allow os_compute_api:os-simple-tenant-usage:list to be performed.")
    assert cloud.api.get("/os-simple-tenant-usage/p2", headers=ALICE).status_code == 403
    assert cloud.api.get("/os-simple-tenant-usage/p1", params=_period(),
                         headers=ALICE).status_code == 200
