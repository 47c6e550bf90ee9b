"""Host states built from the database: nodes, services, aggregates, instances."""

from novalite.db.api import aggregates, compute_nodes, services
from novalite.scheduler.host_manager import HostManager
from tests import builders


def test_states_carry_service_status_aggregates_and_zone(db):
    for host in ("h1", "h2"):
        compute_nodes.compute_node_save(builders.node(host))
    services.service_get_or_create("h1", "novalite-compute", "compute")
    aggregates.aggregate_create("rack1", {"availability_zone": "az1"}, ["h1"])
    manager = HostManager()
    states = {s.host: s for s in manager.get_host_states()}
    assert states["h1"].service_up and not states["h2"].service_up  # h2 never reported
    assert manager.availability_zone(states["h1"]) == "az1"
    assert manager.availability_zone(states["h2"]) == "nova"


def test_cached_state_survives_until_the_node_reports_again(db):
    compute_nodes.compute_node_save(builders.node("h1"))
    manager = HostManager()
    state = manager.get_host_states()[0]
    state.consume_from_request(builders.request_spec())
    assert manager.get_host_states()[0].free_ram_mb == state.free_ram_mb  # kept
    compute_nodes.compute_node_save(builders.node("h1", memory_mb_used=1024))
    assert manager.get_host_states()[0].free_ram_mb == 65536 - 512 - 1024  # refreshed
