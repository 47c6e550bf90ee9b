from novalite.objects import codec, device_metadata
from novalite.objects.device_metadata import DeviceMetadata

NIC = DeviceMetadata(type="nic", bus="pci", address="0000:00:01.0", mac="fa:16:3e:00:00:01")
DISK = DeviceMetadata(type="disk", bus="pci", address="0000:01:00.0", serial="vol-1")


def test_only_tagged_devices_are_listed_each_with_its_tag():
    found = device_metadata.tagged([NIC, DISK], {NIC.mac or "": "eth-data"},
                                   {"vol-1": None, "other": "x"})
    assert found == [DeviceMetadata(type="nic", bus="pci", address="0000:00:01.0",
                                    mac="fa:16:3e:00:00:01", tags=["eth-data"])]
    assert NIC.tags == []  # the driver's report is left as it was


def test_a_disk_is_matched_by_its_volume_and_a_nic_by_its_mac():
    same = DeviceMetadata(type="disk", bus="pci", address="0000:02:00.0",
                          serial="fa:16:3e:00:00:01")
    assert device_metadata.tagged([same], {"fa:16:3e:00:00:01": "nic"}, {}) == []


def test_pci_addresses_are_written_as_nova_writes_them():
    assert device_metadata.pci_address(0, 0x1f, 2) == "0000:00:1f.2"
    assert device_metadata.pci_address(0x12, 0) == "0000:12:00.0"


def test_the_list_survives_the_database_and_rpc():
    tagged = device_metadata.tagged([DISK], {}, {"vol-1": "db"})
    assert device_metadata.from_json(device_metadata.to_json(tagged)) == tagged
    assert device_metadata.from_json(None) == []
    assert codec.deserialize(codec.serialize(tagged)) == tagged
