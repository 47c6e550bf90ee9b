"""Block device mappings on a real database: one volume once per instance, the servers'
views' volumes, and an instance's destroy taking its mappings."""

import pytest

from novalite import exception
from novalite.db import session
from novalite.db.api import block_devices, instances
from tests import builders


def _mapping(instance_uuid: str, volume_id: str, **values):
    return block_devices.bdm_create({"instance_uuid": instance_uuid, "source_type": "volume",
                                     "destination_type": "volume", "volume_id": volume_id,
                                     **values})


def test_a_volume_maps_once_per_instance(db):
    made = _mapping("i1", "v1", device_name="/dev/vdb", delete_on_termination=True)
    assert (made.destination_type, made.is_root, made.attachment_id) == ("volume", False,
                                                                         None)
    with pytest.raises(exception.InvalidVolume) as twice:
        _mapping("i1", "v1")
    assert twice.value.format_message() == "Invalid volume: volume v1 already attached"
    _mapping("i2", "v1")  # another instance (a multiattach volume)
    assert [b.instance_uuid for b in block_devices.bdm_get_by_volume("v1")] == ["i1", "i2"]
    updated = block_devices.bdm_update(made.uuid, {"connection_info": {"a": 1}})
    assert block_devices.bdm_get_by_volume_and_instance("v1", "i1") == updated
    block_devices.bdm_destroy(made.uuid)
    block_devices.bdm_destroy(made.uuid)  # gone already: fine
    with pytest.raises(exception.VolumeBDMNotFound):
        block_devices.bdm_get_by_volume_and_instance("v1", "i1")


def test_views_list_volumes_and_a_destroy_takes_them(db):
    made = builders.instance()
    instance = instances.instance_create({
        "uuid": made.uuid, "display_name": "vm", "project_id": "p1", "user_id": "u1",
        "flavor": builders.flavor(), "vm_state": "active"})
    _mapping(instance.uuid, "v1")
    _mapping(instance.uuid, "v2", delete_on_termination=True)
    with session.reader() as s:
        assert block_devices.volumes_attached(s, [instance.uuid, "other"]) == {
            instance.uuid: [("v1", False), ("v2", True)]}
    assert instances.instance_get_view(instance.uuid)["volumes_attached"] == [
        ("v1", False), ("v2", True)]
    instances.instance_destroy(instance.uuid)
    assert block_devices.bdm_get_all_by_instance(instance.uuid) == []


def test_a_mapping_reads_back_what_was_written_on_each_backend(backend_db):
    """Created with its defaults filled in, updated in place, JSON kept as JSON."""
    made = _mapping("i1", "v1", device_name="/dev/vdb")
    assert (made.delete_on_termination, made.boot_index, made.created_at is not None) == (
        False, None, True)
    updated = block_devices.bdm_update(made.uuid, {
        "attachment_id": "a1", "connection_info": {"driver_volume_type": "nbd",
                                                   "data": {"port": 10809}}})
    assert (updated.id, updated.attachment_id, updated.connection_info["data"]) == (
        made.id, "a1", {"port": 10809})
    assert block_devices.bdm_get_all_by_instance("i1") == [updated]
    with pytest.raises(exception.VolumeBDMNotFound):
        block_devices.bdm_update("no-such-mapping", {"attachment_id": "a2"})
