"""Providers (trees, re-parenting, deletion), inventories, usages and standard rows."""

from __future__ import annotations

import uuid

import os_resource_classes
import pytest
from sqlalchemy import func, select

from novalite.db import session
from novalite.db.models import placement as models
from novalite.placement import allocation, errors, inventory, standards, usage
from novalite.placement import resource_provider as rp
from novalite.placement.allocation import Claim


def test_standard_rows_are_inserted_once(placement_db):
    standards._done.clear()  # as a second process would find the database
    standards.ensure()
    with session.reader() as s:
        count = s.scalar(select(func.count()).select_from(models.ResourceClass))
    assert count == len(os_resource_classes.STANDARDS)


def test_tree_roots_and_reparenting(make_provider):
    root, other = make_provider("root"), make_provider("other")
    child = make_provider("child", parent=root.uuid)
    leaf = make_provider("leaf", parent=child.uuid)
    assert leaf.root_provider_uuid == root.uuid
    with session.writer() as s:
        with pytest.raises(errors.BadRequest, match="re-parenting"):
            rp.update_provider(s, child, "child", other.uuid, True, False)
        with pytest.raises(errors.BadRequest, match="loop"):
            rp.update_provider(s, root, "root", leaf.uuid, True, True)
        rp.update_provider(s, child, "child", other.uuid, True, True)
        assert rp.get(s, leaf.uuid).root_provider_uuid == other.uuid
    with session.reader() as s:
        tree = rp.list_providers(s, rp.Filters(in_tree=leaf.uuid))
    assert {p.name for p in tree} == {"other", "child", "leaf"}


def test_delete_refuses_parents(make_provider):
    root = make_provider()
    make_provider(parent=root.uuid)
    with pytest.raises(errors.Conflict) as caught, session.writer() as s:
        rp.delete_provider(s, rp.get(s, root.uuid))
    assert caught.value.error_code == errors.PROVIDER_CANNOT_DELETE_PARENT


def test_stale_generation_is_a_concurrent_update(make_provider):
    provider = make_provider(VCPU=1)
    with pytest.raises(errors.ConcurrentUpdate), session.writer() as s:
        inventory.replace_all(s, provider, provider.generation - 1, {})


def test_inventory_in_use_and_usages(make_provider):
    provider = make_provider(VCPU=4, DISK_GB=10)
    claim = Claim(str(uuid.uuid4()), {provider.uuid: {"VCPU": 2}}, "p", "u")
    allocation.claim(lambda s: allocation.replace(s, [claim]))
    with session.reader() as s:
        provider = rp.get(s, provider.uuid)
        assert usage.for_provider(s, provider.id) == {"VCPU": 2, "DISK_GB": 0}
        assert usage.for_project(s, "p", None) == {"VCPU": 2}
        assert usage.by_consumer_type(s, "p", None, None) == {
            "unknown": {"VCPU": 2, "consumer_count": 1}}
    with pytest.raises(errors.InventoryInUse), session.writer() as s:
        inventory.replace_all(s, provider, provider.generation, {})
    with session.writer() as s:
        inventory.delete_one(s, provider, "DISK_GB")


def test_resources_filter_honours_units_and_usage(make_provider):
    small, big = make_provider(VCPU=2), make_provider(VCPU=8)
    with session.reader() as s:
        vcpu = s.scalar(select(models.ResourceClass.id).where(
            models.ResourceClass.name == "VCPU"))
        found = rp.list_providers(s, rp.Filters(resources={vcpu: 3}))
    assert [p.uuid for p in found] == [big.uuid]
    assert small.uuid not in [p.uuid for p in found]
