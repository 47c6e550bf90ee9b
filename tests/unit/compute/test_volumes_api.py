"""The compute API's volume checks on a real database: device names and a compute too
old for attachments."""

import datetime

import pytest

from novalite import exception
from novalite.compute import volumes_api
from novalite.context import RequestContext
from novalite.db.api import block_devices
from novalite.objects import states
from novalite.objects.instance import Instance

NOW = datetime.datetime(2024, 1, 1)
SERVER = Instance(uuid="i-1", vm_state=states.ACTIVE, host="h1")


def _mapping(device_name: str, volume_id: str) -> None:
    block_devices.bdm_create({"instance_uuid": SERVER.uuid, "source_type": "volume",
                              "destination_type": "volume", "volume_id": volume_id,
                              "device_name": device_name})


def test_device_names_follow_the_root_disks_and_a_taken_one_is_refused(db):
    assert volumes_api.VolumeAttachAPI._device_name(SERVER.uuid, None) == "/dev/vdb"
    _mapping("/dev/vdb", "v1")
    _mapping("/dev/vdd", "v2")
    assert volumes_api.VolumeAttachAPI._device_name(SERVER.uuid, None) == "/dev/vdc"
    assert volumes_api.VolumeAttachAPI._device_name(SERVER.uuid, "/dev/sdb") == "/dev/sdb"
    with pytest.raises(exception.DevicePathInUse):
        volumes_api.VolumeAttachAPI._device_name(SERVER.uuid, "/dev/vdd")
    for index, letter in enumerate("cefghijklmnopqrstuvwxyz"):
        _mapping(f"/dev/vd{letter}", f"v{index + 3}")
    with pytest.raises(volumes_api.TooManyDiskDevices) as full:
        volumes_api.VolumeAttachAPI._device_name(SERVER.uuid, None)
    assert full.value.code == 403


def test_computes_capped_below_attachments_refuse_them(db, conf):
    conf.set_override("compute", "1.21", group="upgrade_levels")
    with pytest.raises(volumes_api.VolumeAttachNotAvailable):
        volumes_api.VolumeAttachAPI().attach(RequestContext(project_id="p"), SERVER, "v",
                                             None, None, False)


class _Cinder:
    """A volume service whose volumes are all multiattach (no request reaches it)."""

    def __init__(self, ctx, admin=False):
        pass

    def get(self, volume_id):
        return {"id": volume_id, "multiattach": True}


def _attach(instance: Instance, supports_multiattach: bool, shelved: bool = False):
    return volumes_api.VolumeAttachAPI().attach(
        RequestContext(project_id="p"), instance, "v1", None, None, False, shelved=shelved,
        supports_multiattach=supports_multiattach)


@pytest.mark.parametrize("instance, supports, message", [
    (Instance(uuid="i-2", vm_state=states.ACTIVE, host="h1", launched_at=NOW), False,
     "Multiattach volumes are only supported starting with compute API version 2.60."),
    (Instance(uuid="i-2", vm_state=states.SHELVED_OFFLOADED, launched_at=NOW), True,
     "Attaching multiattach volumes is not supported for shelved-offloaded instances."),
    (Instance(uuid="i-1", vm_state=states.ACTIVE, host="h1", launched_at=NOW), True,
     "Invalid volume: volume v1 already attached"),
])
def test_a_multiattach_volume_is_refused_with_novas_texts(db, monkeypatch, instance,
                                                          supports, message):
    monkeypatch.setattr(volumes_api.cinder, "Client", _Cinder)
    _mapping("/dev/vdb", "v1")  # attached to SERVER already
    with pytest.raises(exception.Invalid) as refused:
        _attach(instance, supports, shelved=True)
    assert (refused.value.code, refused.value.format_message()) == (400, message)
    assert len(block_devices.bdm_get_by_volume("v1")) == 1


def test_a_volume_that_is_not_multiattach_goes_to_one_server(db, monkeypatch):
    class Single(_Cinder):
        def get(self, volume_id):
            return {"id": volume_id, "multiattach": False}

    monkeypatch.setattr(volumes_api.cinder, "Client", Single)
    _mapping("/dev/vdb", "v1")
    with pytest.raises(exception.InvalidVolume) as refused:
        _attach(Instance(uuid="i-2", vm_state=states.ACTIVE, host="h1", launched_at=NOW),
                True)
    assert refused.value.format_message() == (
        "Invalid volume: volume v1 is already attached to instances: i-1")
