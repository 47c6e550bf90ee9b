"""The /limits view against tempest's strict schemas at every microversion we serve."""

import importlib

import pytest
from tempest.lib.common import jsonschema_validator

from novalite.api.compute.views import limits as view

MODULES = {(2, 1): "v2_1", (2, 35): "v2_1", (2, 36): "v2_36", (2, 38): "v2_36",
           (2, 39): "v2_39", (2, 56): "v2_39", (2, 57): "v2_57", (2, 74): "v2_57"}
LIMITS = {"instances": 10, "cores": 20, "ram": 51200, "metadata_items": 128,
          "injected_files": 5, "injected_file_content_bytes": 10240,
          "injected_file_path_bytes": 255, "key_pairs": 100, "server_groups": 10,
          "server_group_members": 10, "fixed_ips": -1, "floating_ips": -1,
          "security_groups": -1, "security_group_rules": -1}
USAGE = {"instances": 2, "cores": 3, "ram": 1024, "server_groups": 1, "floating_ips": 0,
         "security_groups": 0}


@pytest.mark.parametrize("version", sorted(MODULES))
def test_view_matches_tempest(version):
    body = view.build(LIMITS, USAGE, version)
    schema = importlib.import_module(
        f"tempest.lib.api_schema.response.compute.{MODULES[version]}.limits").get_limit
    jsonschema_validator.JSONSCHEMA_VALIDATOR(
        schema["response_body"], format_checker=jsonschema_validator.FORMAT_CHECKER
    ).validate(body)
    absolute = body["limits"]["absolute"]
    # tempest does not require these, so check them here
    assert (absolute["maxServerGroups"], absolute["maxServerGroupMembers"],
            absolute["totalServerGroupsUsed"]) == (10, 10, 1)
    assert body["limits"]["rate"] == []


def test_values_at_2_1():
    absolute = view.build(LIMITS, USAGE, (2, 1))["limits"]["absolute"]
    assert absolute == {
        "maxTotalRAMSize": 51200, "maxTotalInstances": 10, "maxTotalCores": 20,
        "maxTotalKeypairs": 100, "maxTotalFloatingIps": -1, "maxServerMeta": 128,
        "maxImageMeta": 128, "maxPersonality": 5, "maxPersonalitySize": 10240,
        "maxSecurityGroups": -1, "maxSecurityGroupRules": -1, "maxServerGroups": 10,
        "maxServerGroupMembers": 10, "totalRAMUsed": 1024, "totalCoresUsed": 3,
        "totalInstancesUsed": 2, "totalFloatingIpsUsed": 0, "totalSecurityGroupsUsed": 0,
        "totalServerGroupsUsed": 1}
