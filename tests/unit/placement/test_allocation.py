"""The claim: capacity, units, all-or-nothing, generations and the retry loop."""

from __future__ import annotations

import uuid

import pytest

from novalite.db import session
from novalite.placement import allocation, errors, inventory, usage
from novalite.placement import resource_provider as rp
from novalite.placement.allocation import Claim


def _claim(*claims: Claim) -> None:
    allocation.claim(lambda s: allocation.replace(s, list(claims)))


def _new(resources: dict, **kw) -> Claim:
    return Claim(str(uuid.uuid4()), resources, "p", "u", **kw)


def _used(provider) -> dict[str, int]:
    with session.reader() as s:
        return usage.for_provider(s, provider.id)


def test_capacity_counts_reserved_and_ratio(make_provider):
    provider = make_provider()
    with session.writer() as s:
        inventory.replace_all(s, provider, 0, {"VCPU": inventory.Inventory(
            total=4, reserved=1, allocation_ratio=2.0)})
    _claim(_new({provider.uuid: {"VCPU": 6}}))
    with pytest.raises(errors.Conflict, match="exceed the capacity"):
        _claim(_new({provider.uuid: {"VCPU": 1}}))
    assert _used(provider) == {"VCPU": 6}


def test_units_are_honoured(make_provider):
    provider = make_provider()
    with session.writer() as s:
        inventory.replace_all(s, provider, 0, {"VCPU": inventory.Inventory(
            total=16, min_unit=2, max_unit=8, step_size=2)})
    for amount in (1, 3, 10):
        with pytest.raises(errors.Conflict, match="violate inventory constraints"):
            _claim(_new({provider.uuid: {"VCPU": amount}}))
    _claim(_new({provider.uuid: {"VCPU": 8}}))


def test_many_consumers_are_all_or_nothing(make_provider):
    provider = make_provider(VCPU=3)
    with pytest.raises(errors.Conflict):
        _claim(_new({provider.uuid: {"VCPU": 2}}), _new({provider.uuid: {"VCPU": 2}}))
    assert _used(provider) == {"VCPU": 0}


def test_replacing_frees_the_old_allocation_first(make_provider):
    provider = make_provider(VCPU=4)
    claim = _new({provider.uuid: {"VCPU": 3}})
    _claim(claim)
    claim.resources = {provider.uuid: {"VCPU": 4}}
    _claim(claim)
    assert _used(provider) == {"VCPU": 4}


def test_every_touched_provider_moves_generation(make_provider):
    a, b = make_provider(VCPU=4), make_provider(VCPU=4)
    claim = _new({a.uuid: {"VCPU": 1}})
    _claim(claim)
    claim.resources = {b.uuid: {"VCPU": 1}}
    _claim(claim)
    with session.reader() as s:
        assert rp.get(s, a.uuid).generation == a.generation + 2
        assert rp.get(s, b.uuid).generation == b.generation + 1
        assert allocation.for_consumer(s, claim.consumer_uuid) == {
            b.uuid: {"generation": b.generation + 1, "resources": {"VCPU": 1}}}


def test_consumer_generation_is_checked(make_provider):
    provider = make_provider(VCPU=4)
    claim = _new({provider.uuid: {"VCPU": 1}}, check_generation=True)
    _claim(claim)
    with pytest.raises(errors.ConcurrentUpdate, match="expected 1 but got null"):
        _claim(claim)
    claim.generation = 1
    _claim(claim)


def test_a_consumer_type_made_by_a_failed_claim_is_not_remembered(make_provider):
    provider = make_provider(VCPU=4)
    for _ in range(2):  # the type is made, then rolled back with the claim
        with pytest.raises(errors.ConcurrentUpdate, match="expected null but got 3"):
            _claim(_new({provider.uuid: {"VCPU": 1}}, consumer_type="MIGRATION",
                        check_generation=True, generation=3))
    for _ in range(2):  # made and committed, then read from the cache
        _claim(_new({provider.uuid: {"VCPU": 1}}, consumer_type="MIGRATION"))
    assert _used(provider) == {"VCPU": 2}


def test_claim_retries_a_changed_provider_then_gives_up():
    calls = []

    def work(s):
        calls.append(1)
        if len(calls) < 3:
            raise allocation.ProviderChanged("moved")
        return "done"

    assert allocation.claim(work) == "done" and len(calls) == 3

    def always(s):
        raise allocation.ProviderChanged("moved")

    with pytest.raises(errors.ConcurrentUpdate, match="Inventory and/or allocations changed"):
        allocation.claim(always)


def test_unknown_provider_or_class(make_provider):
    provider = make_provider(VCPU=4)
    with pytest.raises(errors.BadRequest, match="that does not exist"):
        _claim(_new({str(uuid.uuid4()): {"VCPU": 1}}))
    with pytest.raises(errors.BadRequest, match="No such resource class CUSTOM_X"):
        _claim(_new({provider.uuid: {"CUSTOM_X": 1}}))
    with pytest.raises(errors.Conflict, match="invalid"):
        _claim(_new({provider.uuid: {"DISK_GB": 1}}))


def test_delete_consumer(make_provider):
    provider = make_provider(VCPU=4)
    claim = _new({provider.uuid: {"VCPU": 2}})
    _claim(claim)
    assert allocation.claim(lambda s: allocation.delete_consumer(s, claim.consumer_uuid))
    assert not allocation.claim(lambda s: allocation.delete_consumer(s, claim.consumer_uuid))
    assert _used(provider) == {"VCPU": 0}
