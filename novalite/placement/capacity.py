"""The one capacity rule of placement, used by the allocation candidates (both engines),
the claim and the snapshot: a provider's class has room for `amount` more when

    used + amount <= (total - reserved) * allocation_ratio

and one allocation must lie within [min_unit, max_unit] and be a multiple of step_size.
Plain numbers in, so the flat engine's row loop calls it without building objects."""

from __future__ import annotations


def capacity(total: int, reserved: int, allocation_ratio: float) -> float:
    return (total - reserved) * allocation_ratio


def has_room(used: int, amount: int, total: int, reserved: int,
             allocation_ratio: float) -> bool:
    return used + amount <= capacity(total, reserved, allocation_ratio)


def within_units(amount: int, min_unit: int, max_unit: int, step_size: int) -> bool:
    return min_unit <= amount <= max_unit and amount % step_size == 0
