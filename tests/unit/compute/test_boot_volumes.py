"""The format and boot-sequence rules of block_device_mapping_v2 (those that need no
volume service); the rest is exercised end to end in
tests/functional/compute/test_boot_from_volume_api.py."""

from __future__ import annotations

import pytest

from novalite import exception
from novalite.compute import boot_volumes
from novalite.context import get_admin_context

VOLUME = "0e7f6a4c-1111-4f2e-9a7b-3c2d1e0f9a8b"


def _entry(**fields):
    return {"source_type": "volume", "destination_type": "volume", "uuid": VOLUME,
            **fields}


def test_entries_are_typed_with_nova_defaults():
    (device,) = boot_volumes.from_api([_entry(boot_index="0", delete_on_termination="true",
                                              device_name="vdb")])
    assert (device.boot_index, device.delete_on_termination, device.device_name) == (
        0, True, "/dev/vdb")
    (snapshot,) = boot_volumes.from_api([{"source_type": "snapshot", "uuid": VOLUME}])
    assert snapshot.destination_type == "volume" and snapshot.boot_index is None


def test_the_image_root_names_the_image_and_is_not_a_device():
    entries = [{"source_type": "image", "destination_type": "local", "uuid": "img",
                "boot_index": 0}, _entry()]
    assert boot_volumes.image_root(entries) == "img"
    assert [d.source_type for d in boot_volumes.from_api(entries)] == ["volume"]


@pytest.mark.parametrize(("entry", "message"), [
    ({"destination_type": "volume"}, "Some required fields are missing"),
    (_entry(boot_index="x"), "Boot index is invalid."),
    (_entry(device_name="/dev/v d"), "Device name contains spaces."),
    (_entry(volume_type="fast"), "Specifying volume type to existing volume"),
    ({"source_type": "image", "destination_type": "local", "uuid": "i", "volume_type": "t",
      "boot_index": 0}, "Specifying a volume_type with destination_type=local"),
])
def test_badly_formed_entries_are_nova_400s(entry, message):
    with pytest.raises(boot_volumes.InvalidBDMFormat, match=message):
        boot_volumes.from_api([entry])


@pytest.mark.parametrize(("indexes", "image_booted"), [
    ([None], False), ([1], False), ([0, 2], False), ([0], True), ([0, 0], False),
])
def test_the_boot_sequence_must_count_from_zero(indexes, image_booted):
    devices = boot_volumes.from_api([_entry(boot_index=i) for i in indexes])
    with pytest.raises(boot_volumes.InvalidBDMBootSequence):
        boot_volumes.plan(get_admin_context(), devices, image_booted, 1)


def test_one_volume_is_not_given_to_many_servers():
    devices = boot_volumes.from_api([_entry()])
    with pytest.raises(exception.Invalid, match="multiple instances"):
        boot_volumes.plan(get_admin_context(), devices, True, 2)


def test_devices_are_named_after_the_root():
    devices = boot_volumes.from_api([
        {"source_type": "blank", "destination_type": "volume", "volume_size": 1},
        _entry(boot_index=0),
        {"source_type": "blank", "destination_type": "volume", "volume_size": 1,
         "device_name": "/dev/vdb"}])
    boot_volumes._name_devices(devices, image_booted=False)
    assert [d.device_name for d in devices] == ["/dev/vdc", "/dev/vda", "/dev/vdb"]
    image_booted = boot_volumes.from_api([_entry()])
    boot_volumes._name_devices(image_booted, image_booted=True)
    assert image_booted[0].device_name == "/dev/vdb"


def test_a_volumes_tag_is_kept_on_its_mapping_but_the_image_roots_is_refused():
    (device,) = boot_volumes.from_api([_entry(tag="db")])
    assert device.mapping("i-1")["tag"] == "db"
    with pytest.raises(exception.Invalid, match="tag on the image's root disk"):
        boot_volumes.from_api([{"source_type": "image", "destination_type": "local",
                                "uuid": "img", "boot_index": 0, "tag": "root"}])


class _Volumes:
    """A volume service holding one volume in use."""

    def __init__(self, multiattach: bool):
        self.multiattach = multiattach

    def get(self, uuid):
        return {"id": uuid, "status": "in-use", "size": 1, "multiattach": self.multiattach}


@pytest.mark.parametrize("multiattach, supports, refusal", [
    (False, True, f"Invalid volume: volume '{VOLUME}' status must be 'available'. "
                  "Currently in 'in-use'"),
    (True, False, "Multiattach volumes are only supported starting with compute API "
                  "version 2.60."),
    (True, True, None),
])
def test_a_volume_in_use_boots_a_server_only_if_multiattach_from_2_60(multiattach,
                                                                     supports, refusal):
    (device,) = boot_volumes.from_api([_entry()])
    volumes = _Volumes(multiattach)
    if refusal is None:
        boot_volumes._check_source(get_admin_context(), volumes, device, supports)
        assert device.volume_size == 1
        return
    with pytest.raises(exception.Invalid) as refused:
        boot_volumes._check_source(get_admin_context(), volumes, device, supports)
    assert (refused.value.code, refused.value.format_message()) == (400, refusal)
