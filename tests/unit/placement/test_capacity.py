"""Placement's one capacity rule, as the engines, the claim and the snapshot apply it."""

from __future__ import annotations

from novalite.placement import capacity


def test_capacity_is_unreserved_total_times_the_ratio():
    assert capacity.capacity(total=16, reserved=4, allocation_ratio=1.5) == 18


def test_room_counts_what_is_used_and_allows_an_exact_fill():
    assert capacity.has_room(used=10, amount=8, total=16, reserved=4, allocation_ratio=1.5)
    assert not capacity.has_room(used=10, amount=9, total=16, reserved=4,
                                 allocation_ratio=1.5)


def test_a_fractional_capacity_is_not_rounded_up():
    assert not capacity.has_room(used=0, amount=3, total=5, reserved=0, allocation_ratio=0.5)


def test_units_bound_one_allocation_and_keep_its_step():
    assert capacity.within_units(4, min_unit=2, max_unit=8, step_size=2)
    assert not capacity.within_units(1, min_unit=2, max_unit=8, step_size=1)
    assert not capacity.within_units(9, min_unit=2, max_unit=8, step_size=1)
    assert not capacity.within_units(5, min_unit=2, max_unit=8, step_size=2)
