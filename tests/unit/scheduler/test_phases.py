"""A request's phases add up per name, in the order they first ran."""

import pytest

from novalite.scheduler.phases import Phases


def test_phases_add_up_per_name_and_count_a_failing_block():
    phases = Phases()
    for _ in range(2):
        with phases.timed("filters"):
            pass
    with pytest.raises(ValueError), phases.timed("claim"):
        raise ValueError
    assert list(phases.ms) == ["filters", "claim"]
    assert all(ms >= 0 for ms in phases.ms.values())
    assert str(phases).startswith("filters ") and ", claim " in str(phases)
