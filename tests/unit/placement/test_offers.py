"""Offers kept between candidate requests follow every writer that changes what a
provider offers, and a request reads again only the providers whose generation moved."""

from __future__ import annotations

import json
import uuid
from urllib.parse import parse_qsl

from novalite.api.placement import allocation_candidates_query as query
from novalite.db import session
from novalite.placement import (
    allocation,
    allocation_candidates,
    inventory,
    reshaper,
    resource_provider,
    trait,
)
from novalite.placement.allocation import Claim
from novalite.placement.candidates import offers
from novalite.placement.candidates.request import Options


def _summaries(qs: str = "resources=VCPU:1") -> dict:
    version = (1, 39)
    groups, params = query.parse(parse_qsl(qs), version)
    with session.core_reader() as unit:
        body = allocation_candidates.get(unit.connection(), groups, params, version,
                                         Options())
    return json.loads(body)["provider_summaries"]


def _vcpu(summaries: dict, provider) -> dict:
    return summaries[provider.uuid]["resources"]["VCPU"]


def _claim(consumer: str, resources: dict) -> None:
    allocation.claim(lambda s: allocation.replace(s, [Claim(consumer, resources, "p", "u")]))


def _fresh(provider):
    with session.reader() as s:
        return resource_provider.get(s, provider.uuid)


def test_a_claim_and_its_release_are_seen(make_provider):
    provider = make_provider(VCPU=4)
    assert _vcpu(_summaries(), provider) == {"capacity": 4, "used": 0}
    _claim("c1", {provider.uuid: {"VCPU": 3}})
    assert _vcpu(_summaries(), provider) == {"capacity": 4, "used": 3}
    assert _summaries("resources=VCPU:2") == {}
    with session.writer() as s:
        allocation.delete_consumer(s, "c1")
    assert _vcpu(_summaries("resources=VCPU:2"), provider) == {"capacity": 4, "used": 0}


def test_inventory_changes_are_seen(make_provider):
    provider = make_provider(VCPU=4)
    assert _vcpu(_summaries(), provider)["capacity"] == 4
    with session.writer() as s:
        inventory.replace_all(s, provider, provider.generation, {
            "VCPU": inventory.Inventory(8, allocation_ratio=2.0)})
    assert _vcpu(_summaries(), provider)["capacity"] == 16
    with session.writer() as s:
        inventory.delete_all(s, _fresh(provider))
    assert _summaries() == {}


def test_trait_changes_are_seen(make_provider):
    provider = make_provider(VCPU=4)
    assert _summaries()[provider.uuid]["traits"] == []
    with session.writer() as s:
        ids = trait.require_ids(s, ["HW_CPU_X86_AVX", "COMPUTE_NET_VIF_MODEL_E1000"], "%s")
        trait.set_provider_traits(s, provider, provider.generation, ids.values())
    assert _summaries()[provider.uuid]["traits"] == ["COMPUTE_NET_VIF_MODEL_E1000",
                                                     "HW_CPU_X86_AVX"]


def test_a_reshape_is_seen_on_the_provider_it_leaves(make_provider):
    """The consumers' old provider is named neither in the inventories nor in the new
    allocations, yet what it offers changed."""
    old, new = make_provider(VCPU=4), make_provider(VCPU=4)
    _claim("c1", {old.uuid: {"VCPU": 3}})
    assert _vcpu(_summaries(), old)["used"] == 3
    new = _fresh(new)
    with session.writer() as s:
        reshaper.reshape(s, {new.uuid: (new.generation, {"VCPU": inventory.Inventory(4)})},
                         [Claim("c1", {new.uuid: {"VCPU": 3}}, "p", "u")], False)
    summaries = _summaries()
    assert _vcpu(summaries, old)["used"] == 0
    assert _vcpu(summaries, new)["used"] == 3


def test_a_provider_given_a_deleted_ones_id_is_read_as_itself(make_provider):
    """SQLite gives the largest id again once its row is gone, and the newcomer climbs
    to the same generation: only its uuid tells the two apart."""
    gone = make_provider(VCPU=4)
    assert set(_summaries()) == {gone.uuid}
    with session.writer() as s:
        inventory.delete_all(s, _fresh(gone))
        resource_provider.delete_provider(s, _fresh(gone))
    newcomer = make_provider(VCPU=4)
    assert (newcomer.id, newcomer.generation) == (gone.id, gone.generation)
    assert set(_summaries()) == {newcomer.uuid}


def test_only_the_providers_whose_generation_moved_are_read_again(make_provider,
                                                                   monkeypatch):
    providers = [make_provider(VCPU=4) for _ in range(5)]
    read: list[list[int]] = []
    real_read = offers._read
    monkeypatch.setattr(offers, "_read", lambda conn, generations: (
        read.append(sorted(generations)), real_read(conn, generations))[1])
    _summaries()
    assert read == [sorted(p.id for p in providers)]
    read.clear()
    _claim(str(uuid.uuid4()), {providers[2].uuid: {"VCPU": 1}})
    assert _vcpu(_summaries(), providers[2])["used"] == 1
    assert read == [[providers[2].id]]
    read.clear()
    _summaries()
    assert read == []


def test_the_offers_of_deleted_providers_are_let_go(make_provider):
    """Offers are kept per provider id: a cloud whose computes come and go would
    otherwise keep every provider it ever had."""
    kept, gone = make_provider(VCPU=4), [make_provider(VCPU=4) for _ in range(3)]
    _summaries()
    with session.writer() as s:
        for provider in gone:
            inventory.delete_all(s, _fresh(provider))
            resource_provider.delete_provider(s, _fresh(provider))
    assert set(_summaries()) == {kept.uuid}
    assert set(offers._offers_of(session.get_engine())) == {kept.id}
