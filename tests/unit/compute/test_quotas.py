"""Quotas: Nova's defaults, usage counted from the database, and how a boot that does
not fit is reported or cut down to what fits."""

import pytest

from novalite import exception
from novalite.compute import quotas
from novalite.db.api import instances, server_groups
from tests import builders

FLAVOR = builders.flavor(vcpus=2, memory_mb=1024)


def _instance(project="p1", **values):
    inst = builders.instance(project_id=project)
    return instances.instance_create({"uuid": inst.uuid, "display_name": "vm",
                                      "project_id": project, "user_id": "u1",
                                      "flavor": FLAVOR, "vm_state": "active", **values})


def test_novas_defaults(db):
    limits = quotas.limits()
    assert {k: limits[k] for k in ("instances", "cores", "ram", "metadata_items",
                                   "injected_files", "injected_file_content_bytes",
                                   "injected_file_path_bytes", "key_pairs",
                                   "server_groups", "server_group_members")} == {
        "instances": 10, "cores": 20, "ram": 51200, "metadata_items": 128,
        "injected_files": 5, "injected_file_content_bytes": 10240,
        "injected_file_path_bytes": 255, "key_pairs": 100, "server_groups": 10,
        "server_group_members": 10}
    assert limits["floating_ips"] == limits["security_groups"] == -1


def test_usage_counts_live_instances_of_the_project(db):
    _instance()
    _instance(vm_state="soft-delete")
    instances.instance_destroy(_instance().uuid)
    _instance(project="p2")
    server_groups.group_create("g", "p1", "u1", "affinity")
    usage = quotas.project_usage("p1")
    assert (usage["instances"], usage["cores"], usage["ram"], usage["server_groups"]) == (
        1, 2, 1024, 1)


def test_a_boot_that_fits(conf, db):
    conf.set_override("instances", 3, group="quota")
    _instance()
    assert quotas.check_instances("p1", FLAVOR, 1, 2) == 2
    # a range gets the most that fits when that is at least min_count
    assert quotas.check_instances("p1", FLAVOR, 1, 5) == 2


def test_over_the_instances_quota(conf, db):
    conf.set_override("instances", 1, group="quota")
    _instance()
    with pytest.raises(exception.TooManyInstances) as raised:
        quotas.check_instances("p1", FLAVOR, 1, 1)
    assert raised.value.format_message() == (
        "Quota exceeded for instances: Requested 1, but already used 1 of 1 instances")
    assert raised.value.code == 403
    with pytest.raises(exception.TooManyInstances, match="Requested 2-3, but"):
        quotas.check_instances("p1", FLAVOR, 2, 3)


def test_over_cores_and_ram_names_both(conf, db):
    conf.set_override("cores", 3, group="quota")
    conf.set_override("ram", 1500, group="quota")
    _instance()
    with pytest.raises(exception.TooManyInstances) as raised:
        quotas.check_instances("p1", FLAVOR, 1, 1)
    assert raised.value.format_message() == (
        "Quota exceeded for cores, ram: Requested 2, 1024, but already used 2, 1024 of "
        "3, 1500 cores, ram")


def test_unlimited_cores_follow_the_instance_headroom(conf, db):
    conf.set_override("instances", 2, group="quota")
    conf.set_override("cores", -1, group="quota")
    conf.set_override("ram", -1, group="quota")
    _instance()
    assert quotas.check_instances("p1", FLAVOR, 1, 4) == 1


def test_recheck_after_concurrent_creates(conf, db):
    conf.set_override("instances", 1, group="quota")
    _instance()
    quotas.recheck_instances("p1", FLAVOR, 1)  # at the limit is fine
    _instance()
    with pytest.raises(exception.TooManyInstances) as raised:
        quotas.recheck_instances("p1", FLAVOR, 1)
    assert raised.value.format_message() == (
        "Quota exceeded for instances: Requested 1, but already used 1 of 1 instances")


def test_unlimited_instances_cores_and_ram_count_nothing(conf, db, monkeypatch):
    """A project without limits (as an admin's often is) boots without its usage being
    counted, on the check and the recheck."""
    for resource in ("instances", "cores", "ram"):
        conf.set_override(resource, -1, group="quota")
    _instance()

    def counted(*_args):
        raise AssertionError("usage counted")

    monkeypatch.setattr(instances, "instance_usage", counted)
    assert quotas.check_instances("p1", FLAVOR, 1, 50) == 50
    quotas.recheck_instances("p1", FLAVOR, 50)


def test_metadata_items(db, conf):
    conf.set_override("metadata_items", 1, group="quota")
    quotas.check_metadata({"a": "1"})
    with pytest.raises(exception.MetadataLimitExceeded,
                       match="Maximum number of metadata items exceeds 1"):
        quotas.check_metadata({"a": "1", "b": "2"})
