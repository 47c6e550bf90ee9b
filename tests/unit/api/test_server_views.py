import datetime
import importlib

import pytest
from tempest.lib.common import jsonschema_validator

from novalite.api.compute.views import servers as view


@pytest.mark.parametrize(("vm_state", "task_state", "status"), [
    ("building", "scheduling", "BUILD"),
    ("active", None, "ACTIVE"),
    ("active", "rebooting_hard", "HARD_REBOOT"),
    ("active", "rebooting", "REBOOT"),
    ("active", "reboot_started", "REBOOT"),
    ("active", "reboot_pending_hard", "HARD_REBOOT"),
    ("active", "reboot_started_hard", "HARD_REBOOT"),
    ("active", "powering-off", "ACTIVE"),
    ("stopped", "powering-on", "SHUTOFF"),
    ("stopped", "rebooting_hard", "SHUTOFF"),
    ("stopped", None, "SHUTOFF"),
    ("error", None, "ERROR"),
    ("active", "pausing", "ACTIVE"),
    ("paused", None, "PAUSED"),
    ("paused", "unpausing", "PAUSED"),
    ("suspended", None, "SUSPENDED"),
    ("suspended", "resuming", "SUSPENDED"),
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


def _opts(version=(2, 1), is_admin=False, **kw):
    return view.ViewOptions("http://x/compute", version, is_admin, **kw)


def test_detail_at_2_1_has_no_later_fields():
    body = view.detail(_instance(), _opts(), FAULT)
    for later in ("locked", "host_status", "description", "tags", "locked_reason",
                  "trusted_image_certificates", "server_groups"):
        assert later not in body
    assert body["flavor"] == {"id": "1", "links": [
        {"rel": "bookmark", "href": "http://x/compute/flavors/1"}]}


def test_fault_details_and_host_attributes_only_for_admins():
    user = view.detail(_instance(), _opts(), FAULT)
    admin = view.detail(_instance(), _opts(is_admin=True), FAULT)
    assert "details" not in user["fault"] and admin["fault"]["details"] == "tb"
    assert "OS-EXT-SRV-ATTR:host" not in user
    assert admin["OS-EXT-SRV-ATTR:instance_name"] == "instance-00000007"


# Tempest's response schemas are strict (no additional properties) and per microversion:
# each version's view must match the schema of the newest tempest module at or below it.
TEMPEST_MODULES = {(2, 1): "v2_1", (2, 3): "v2_3", (2, 9): "v2_9", (2, 16): "v2_16",
                   (2, 19): "v2_19", (2, 26): "v2_26", (2, 47): "v2_47", (2, 63): "v2_63",
                   (2, 71): "v2_71", (2, 73): "v2_73", (2, 74): "v2_73"}


FLAVOR = {"flavorid": "1", "name": "m1.tiny", "vcpus": 1, "memory_mb": 512, "root_gb": 1,
          "ephemeral_gb": 0, "swap": 0, "extra_specs": {"a": "b"}}


def _validate(body: dict, schema: dict) -> None:
    """As tempest's rest client validates: Draft 4 with its format checker."""
    jsonschema_validator.JSONSCHEMA_VALIDATOR(
        schema["response_body"], format_checker=jsonschema_validator.FORMAT_CHECKER
    ).validate(body)


@pytest.mark.parametrize("version", sorted(TEMPEST_MODULES))
@pytest.mark.parametrize("is_admin", [False, True])
def test_views_match_tempests_schema_at_each_microversion(version, is_admin):
    module = importlib.import_module(
        f"tempest.lib.api_schema.response.compute.{TEMPEST_MODULES[version]}.servers")
    inst = _instance(flavor={"cur": FLAVOR}, reservation_id="r-1", launch_index=0,
                     hostname="vm", user_data=None, locked=False, display_description=None)
    opts = _opts(version, is_admin, host_statuses={"h1": "UP"}, server_groups=[])
    one = view.detail(inst, opts, FAULT)
    _validate({"server": one}, module.get_server)
    listed = view.detail(inst, _opts(version, is_admin, host_statuses={"h1": "UP"}), FAULT)
    _validate({"servers": [listed]}, module.list_servers_detail)
    if version >= (2, 47):
        assert one["flavor"]["original_name"] == "m1.tiny"
        assert one["flavor"]["extra_specs"] == {"a": "b"}
    assert ("host_status" in one) == (is_admin and version >= (2, 16))


@pytest.mark.parametrize(("vm_state", "task_state", "power_state"), [
    ("stopped", None, 4), ("active", "powering-off", 1), ("stopped", "powering-on", 4),
    ("active", "reboot_started", 1), ("active", "reboot_started_hard", 0),
])
@pytest.mark.parametrize("version", [(2, 1), (2, 47), (2, 73)])
def test_power_states_match_tempests_schema(vm_state, task_state, power_state, version):
    module = importlib.import_module(
        f"tempest.lib.api_schema.response.compute.{TEMPEST_MODULES[version]}.servers")
    inst = _instance(vm_state=vm_state, task_state=task_state, power_state=power_state,
                     flavor={"cur": FLAVOR}, launched_at=datetime.datetime(2026, 1, 1),
                     reservation_id="r-1", launch_index=0, hostname="vm", user_data=None,
                     locked=False, display_description=None)
    opts = _opts(version, True, host_statuses={"h1": "UP"}, server_groups=[])
    body = view.detail(inst, opts)
    _validate({"server": body}, module.get_server)
    assert body["OS-EXT-STS:power_state"] == power_state
