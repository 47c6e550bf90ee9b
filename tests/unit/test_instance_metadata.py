import base64
import json

from novalite import instance_metadata
from novalite.objects.instance import Instance
from novalite.objects.network_info import IP, VIF, Network, Subnet


def _instance(**values) -> Instance:
    vif = VIF(id="0123456789abcdef", address="fa:16:3e:00:00:05", network=Network(
        id="net-1", label="private", bridge="brqnet-1", mtu=1450, subnets=[
            Subnet(cidr="10.0.0.0/26", gateway="10.0.0.1", dns=["8.8.8.8"],
                   ips=[IP(address="10.0.0.5")]),
            Subnet(cidr="192.168.9.0/24", gateway="192.168.9.1", dhcp_enabled=False,
                   ips=[IP(address="192.168.9.7")])]))
    return Instance(uuid="u-1", display_name="vm one", hostname="vm-one", key_name="k",
                    key_data="ssh-ed25519 AAAA me", network_info=[vif], **values)


def test_meta_data_names_the_guest_and_its_keys():
    found = instance_metadata.meta_data(_instance(metadata={"role": "web"}))
    assert found["uuid"] == "u-1" and found["hostname"] == "vm-one"
    assert found["name"] == "vm one" and found["meta"] == {"role": "web"}
    assert found["public_keys"] == {"k": "ssh-ed25519 AAAA me"}


def test_network_data_says_dhcp_where_the_subnet_serves_it_else_the_address():
    found = instance_metadata.network_data(_instance())
    assert found["links"] == [{"id": "tap0123456789a", "vif_id": "0123456789abcdef",
                               "type": "bridge", "ethernet_mac_address": "fa:16:3e:00:00:05",
                               "mtu": 1450}]
    dhcp, static = found["networks"]
    assert dhcp["type"] == "ipv4_dhcp" and "ip_address" not in dhcp
    assert static["type"] == "ipv4" and static["ip_address"] == "192.168.9.7"
    assert static["netmask"] == "255.255.255.0"
    assert static["routes"][0]["gateway"] == "192.168.9.1"
    assert found["services"] == [{"type": "dns", "address": "8.8.8.8"}]


def test_user_data_is_handed_over_decoded_and_only_when_given():
    script = b"#!/bin/sh\necho hi\n"
    tree = instance_metadata.files(_instance(user_data=base64.b64encode(script).decode()))
    assert tree["openstack/latest/user_data"] == script
    assert json.loads(tree["openstack/latest/meta_data.json"])["uuid"] == "u-1"
    assert "openstack/latest/user_data" not in instance_metadata.files(_instance())


def _tagged() -> Instance:
    from novalite.objects.device_metadata import DeviceMetadata
    return _instance(device_metadata=[
        DeviceMetadata(type="nic", bus="pci", address="0000:00:01.0",
                       mac="fa:16:3e:00:00:05", tags=["data"]),
        DeviceMetadata(type="disk", bus="pci", address="0000:01:00.0", serial="vol-1",
                       tags=["db"])])


def test_devices_are_listed_in_novas_words():
    assert instance_metadata.meta_data(_tagged())["devices"] == [
        {"type": "nic", "bus": "pci", "address": "0000:00:01.0", "mac": "fa:16:3e:00:00:05",
         "vf_trusted": False, "tags": ["data"]},
        {"type": "disk", "bus": "pci", "address": "0000:01:00.0", "serial": "vol-1",
         "tags": ["db"]}]
    assert instance_metadata.meta_data(_instance())["devices"] == []


def test_a_metadata_version_shows_what_it_had():
    assert "devices" not in instance_metadata.meta_data(_tagged(), "2016-06-29")
    newton = instance_metadata.meta_data(_tagged(), "2016-06-30")["devices"]
    assert "vf_trusted" not in newton[0] and newton[0]["tags"] == ["data"]
    assert instance_metadata.meta_data(_tagged(), "2018-08-27")["devices"][0]["vf_trusted"] \
        is False
    written = json.loads(instance_metadata.files(_tagged())["openstack/latest/meta_data.json"])
    assert [d["tags"] for d in written["devices"]] == [["data"], ["db"]]
