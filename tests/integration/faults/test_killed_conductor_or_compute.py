"""kill -9 of a conductor or a compute during a storm, restarted two seconds later, on
PostgreSQL and MariaDB."""

from __future__ import annotations

import pytest

from tests import fault_storm


@pytest.mark.parametrize("victim", ["conductor", "compute2"])
def test_a_service_killed_during_a_storm_leaves_nothing_stuck_or_leaked(topology, victim):
    fault_storm.assert_recovers(topology, fault_storm.stop_and_restart(topology, victim))
