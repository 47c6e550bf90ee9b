"""kill -9 of the scheduler or of the API (which serves placement), and a graceful
SIGTERM of a compute with builds running, during a storm, each restarted; on one
database: what they exercise is the services', not the SQL's. The scheduling calls a
killed scheduler had taken, and the builds a stopped compute had queued, are
acknowledged only once handled: their successors carry them on, so the build watchdog
buries none of them."""

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
