from novalite.virt import pci_layout


def _where(devices) -> list[tuple[str, str]]:
    return [(d.mac or d.serial, d.address) for d in devices]


def test_an_image_backed_guests_nics_start_at_slot_1_and_volumes_sit_behind_ports():
    found = pci_layout.devices(["m1", "m2"], None, {"v1": 0, "v3": 2})
    assert _where(found) == [("m1", "0000:00:01.0"), ("m2", "0000:00:02.0"),
                             ("v1", "0000:01:00.0"), ("v3", "0000:03:00.0")]


def test_a_root_volume_takes_slot_1_before_the_nics():
    found = pci_layout.devices(["m1"], "root", {})
    assert _where(found) == [("root", "0000:00:01.0"), ("m1", "0000:00:02.0")]
    assert [d.type for d in found] == ["disk", "nic"]
