"""Hypervisor views against tempest's strict schemas at every microversion we serve."""

import datetime
import importlib

import pytest
from tempest.lib.common import jsonschema_validator

from novalite.api.compute.views import hypervisors as view
from novalite.objects.service import Service
from tests import builders

# the newest tempest module at or below each version that changes the view
MODULES = {(2, 1): "v2_1", (2, 27): "v2_1", (2, 28): "v2_28", (2, 32): "v2_28",
           (2, 33): "v2_33", (2, 52): "v2_33", (2, 53): "v2_53", (2, 74): "v2_53"}
SERVERS = [{"name": "instance-00000001", "uuid": "9d1b2d9c-5d2f-4a4e-9a0e-5e0c1f0a1a01"}]


def _hypervisor(servers=(), disabled=False, cpu_info='{"arch": "x86_64"}'):
    node = builders.node("h1", id=3, host_ip="10.0.0.3", memory_mb_used=1024,
                         local_gb_used=10, cpu_info=cpu_info, disk_available_least=1000)
    service = Service(id=7, uuid="5b3f0c1e-6a8f-4b61-9e19-0c9a2a1d7e11", host="h1",
                      binary="novalite-compute", disabled=disabled,
                      created_at=datetime.datetime(2026, 1, 1))
    return view.Hypervisor(node, service, True, list(servers))


def _validate(body, version, name):
    module = importlib.import_module(
        f"tempest.lib.api_schema.response.compute.{MODULES[version]}.hypervisors")
    jsonschema_validator.JSONSCHEMA_VALIDATOR(
        getattr(module, name)["response_body"],
        format_checker=jsonschema_validator.FORMAT_CHECKER).validate(body)


@pytest.mark.parametrize("version", sorted(MODULES))
@pytest.mark.parametrize("servers", [(), SERVERS])
def test_views_match_tempest(version, servers):
    """Before 2.53 only the servers route lists servers (with_servers comes at 2.53)."""
    hyp = _hypervisor(servers)
    if version < (2, 53) and servers:
        _validate({"hypervisors": [view.hypervisor(hyp, version, detail=False)]}, version,
                  "get_hypervisors_servers")
        return
    detail = view.hypervisor(hyp, version, detail=True)
    _validate({"hypervisor": detail}, version, "get_hypervisor")
    _validate({"hypervisors": [detail]}, version, "list_hypervisors_detail")
    _validate({"hypervisors": [view.hypervisor(hyp, version, detail=False)]}, version,
              "list_search_hypervisors")
    _validate(view.statistics([hyp]), version, "get_hypervisor_statistics")


def test_ids_and_cpu_info_change_with_the_version():
    hyp = _hypervisor()
    old, new = view.hypervisor(hyp, (2, 1), True), view.hypervisor(hyp, (2, 53), True)
    assert (old["id"], old["service"]["id"]) == (3, 7)
    assert (new["id"], new["service"]["id"]) == (hyp.node.uuid, hyp.service.uuid)
    assert old["cpu_info"] == '{"arch": "x86_64"}' and new["cpu_info"] == {"arch": "x86_64"}
    assert view.hypervisor(_hypervisor(cpu_info=""), (2, 28), True)["cpu_info"] == {}
    assert (old["free_ram_mb"], old["free_disk_gb"]) == (65536 - 1024, 1024 - 10)


def test_servers_only_when_there_are_some():
    assert "servers" not in view.hypervisor(_hypervisor(), (2, 53), False)
    assert view.hypervisor(_hypervisor(SERVERS), (2, 53), False)["servers"] == SERVERS


def test_statistics_leave_out_disabled_services():
    stats = view.statistics([_hypervisor(), _hypervisor(disabled=True)])["hypervisor_statistics"]
    assert (stats["count"], stats["vcpus"], stats["memory_mb_used"]) == (1, 16, 1024)
    assert view.statistics([])["hypervisor_statistics"]["disk_available_least"] == 0
