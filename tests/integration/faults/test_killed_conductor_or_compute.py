"""kill -9 of a conductor or a compute during a storm, restarted two seconds later, on
PostgreSQL and MariaDB. Build messages are acknowledged only once handled, so the builds
a killed service had taken are carried on when it (or another conductor) is back: with
room for the whole storm, every server a conductor's kill touched ends ACTIVE, and a
compute's kill leaves at most the builds it was spawning in ERROR (interrupted, as
Nova's init_host says) — none buried by the build watchdog."""

from __future__ import annotations

import pytest

from tests import fault_storm


@pytest.mark.parametrize("victim", ["conductor", "compute2"])
def test_a_service_killed_during_a_storm_leaves_nothing_stuck_or_leaked(topology, victim):
    found = fault_storm.assert_recovers(topology,
                                        fault_storm.stop_and_restart(topology, victim))
    if victim == "conductor":  # 3 computes x 64 slots: room for the CI storm
        assert found["error_reasons"] == {} and found["active"] == found["accepted"], found
    else:
        assert all("interrupted by a restart of compute compute2" in reason
                   for reason in found["error_reasons"]), found
