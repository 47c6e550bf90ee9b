"""kill -9 of the scheduler or of the API (which serves placement), or of placement in a
process of its own, and a graceful SIGTERM of a compute with builds running, during a
storm, each restarted; on one database: what they exercise is the services', not the
SQL's. The scheduling calls a killed scheduler had taken, and the builds a stopped
compute had queued, are acknowledged only once handled: their successors carry them on,
so the build watchdog buries none of them."""

from __future__ import annotations

import signal

import pytest

from tests import fault_storm


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
@pytest.mark.parametrize(("victim", "how"), [
    ("scheduler", signal.SIGKILL), ("api", signal.SIGKILL), ("compute2", signal.SIGTERM)])
def test_a_scheduler_or_the_api_killed_or_a_compute_stopped_leaves_nothing_stuck(
        topology, victim, how):
    found = fault_storm.assert_recovers(
        topology, fault_storm.stop_and_restart(topology, victim, how))
    if victim != "api":  # a build the killed API saved but never sent on is the watchdog's
        assert not [reason for reason in found["error_reasons"] if "watchdog" in reason], \
            found


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_novalite_placement_killed_during_a_storm_leaves_nothing_stuck(topology):
    """Placement in a process of its own, killed and restarted 2 s later: the scheduler's
    candidates and claims and the computes' reports wait for it (their connect retries)
    instead of failing the builds."""
    found = fault_storm.assert_recovers(
        topology, fault_storm.stop_and_restart(topology, "placement"), placement_apart=True)
    assert found["error"] == 0, found["error_reasons"]
    assert "Unable to establish connection" in topology.log("scheduler")  # it met the outage
