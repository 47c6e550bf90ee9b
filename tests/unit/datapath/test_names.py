import ipaddress

from novalite.datapath import names


def test_a_clouds_prefix_follows_its_database(conf):
    first = names.prefix()
    conf.set_override("state_path", "/elsewhere")
    assert names.prefix() != first and names.prefix().startswith("nl")
    conf.set_override("connection", "postgresql+psycopg://u@h/nova", group="database")
    shared = names.prefix()
    conf.set_override("state_path", "/a/third/place")
    assert names.prefix() == shared  # every service of a distributed cloud agrees
    conf.set_override("namespace_prefix", "mine", group="datapath")
    assert names.host_namespace("c1") == "mine-host-c1"


def test_device_names_fit_linuxs_fifteen_characters():
    port = "0123456789ab-cdef-0123-4567-89abcdef0123"
    for device in (names.bridge(port), names.port_device(port), names.namespace_device(port),
                   names.underlay_port("a-very-long-host-name.example.org"),
                   names.vxlan_device(16777215)):
        assert len(device) <= 15, device


def test_hosts_get_distinct_stable_underlay_addresses(conf):
    found = {names.local_ip(f"compute{i}") for i in range(50)}
    network = ipaddress.IPv4Network(conf.datapath.underlay_cidr)
    assert len(found) == 50
    assert all(a.ip in network and a.ip not in (network.network_address,
                                                 network.broadcast_address) for a in found)
    assert names.local_ip("compute1") == names.local_ip("compute1")
    conf.set_override("local_ip", "100.64.9.9", group="vxlan")
    assert str(names.local_ip("anything")) == "100.64.9.9/16"
