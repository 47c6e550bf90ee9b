import datetime

import pytest

from novalite.api.compute.views import servers as view


@pytest.mark.parametrize(("vm_state", "task_state", "status"), [
    ("building", "scheduling", "BUILD"),
    ("active", None, "ACTIVE"),
    ("active", "rebooting_hard", "HARD_REBOOT"),
    ("stopped", None, "SHUTOFF"),
    ("error", None, "ERROR"),
    ("deleted", None, "DELETED"),
    ("nonsense", None, "UNKNOWN"),
])
def test_status_from_states(vm_state, task_state, status):
    assert view.status(vm_state, task_state) == status


def test_host_id_hides_the_host_but_is_stable_per_project():
    assert view.host_id("p1", None) == ""
    assert view.host_id("p1", "h") == view.host_id("p1", "h") != view.host_id("p2", "h")
    assert len(view.host_id("p1", "h")) == 56


def _instance(**kw):
    now = datetime.datetime(2026, 1, 1)
    data = dict(id=7, uuid="u-1", display_name="vm", project_id="p", user_id="u",
                metadata={}, host="h1", node="h1", image_ref="img", vm_state="error",
                task_state=None, power_state=0, created_at=now, updated_at=None,
                access_ip_v4=None, access_ip_v6=None, availability_zone="nova",
                config_drive=None, key_name=None, launched_at=None, terminated_at=None,
                progress=None, flavor={"cur": {"flavorid": "1"}})
    return {**data, **kw}


FAULT = {"code": 500, "message": "No valid host was found. ", "details": "tb",
         "created": datetime.datetime(2026, 1, 1)}


def test_detail_at_2_1_has_no_later_fields():
    body = view.detail(_instance(), "http://x/compute", FAULT, is_admin=False)
    for later in ("locked", "host_status", "description", "tags", "locked_reason",
                  "trusted_image_certificates"):
        assert later not in body
    assert body["flavor"] == {"id": "1", "links": [
        {"rel": "bookmark", "href": "http://x/compute/flavors/1"}]}


def test_fault_details_and_host_attributes_only_for_admins():
    user = view.detail(_instance(), "http://x/compute", FAULT, is_admin=False)
    admin = view.detail(_instance(), "http://x/compute", FAULT, is_admin=True)
    assert "details" not in user["fault"] and admin["fault"]["details"] == "tb"
    assert "OS-EXT-SRV-ATTR:host" not in user
    assert admin["OS-EXT-SRV-ATTR:instance_name"] == "instance-00000007"
