"""What the host's security-group agent makes of the network service's answers."""

from novalite.virt.qemu import security_groups

PORTS = {
    ("binding:host_id", "c1"): [
        {"id": "p1", "device_owner": "compute:nova", "mac_address": "fa:16:3e:00:00:01",
         "fixed_ips": [{"ip_address": "10.0.0.5"}], "security_groups": ["web"],
         "allowed_address_pairs": [{"ip_address": "10.0.9.0/24"}],
         "port_security_enabled": True},
        {"id": "dhcp", "device_owner": "network:dhcp", "mac_address": "fa:16:3e:00:00:02",
         "fixed_ips": [{"ip_address": "10.0.0.2"}], "security_groups": []}],
    ("security_groups", ("db",)): [
        {"id": "p9", "fixed_ips": [{"ip_address": "10.0.0.9"}], "security_groups": ["db"]}],
}
RULES = [
    {"security_group_id": "web", "direction": "ingress", "ethertype": "IPv4",
     "protocol": "tcp", "port_range_min": 80, "port_range_max": 80,
     "remote_ip_prefix": None, "remote_group_id": None},
    {"security_group_id": "web", "direction": "ingress", "ethertype": "IPv4",
     "protocol": None, "port_range_min": None, "port_range_max": None,
     "remote_ip_prefix": None, "remote_group_id": "db"},
]


class FakeClient:
    def list(self, collection: str, **filters):
        if collection == "security-group-rules":
            assert filters == {"security_group_id": ["web"]}
            return RULES
        (key, value), = filters.items()
        return PORTS[(key, tuple(value) if isinstance(value, list) else value)]


def test_the_hosts_compute_ports_get_their_groups_rules_and_remote_members():
    found, = security_groups.port_filters(FakeClient(), "c1")
    assert found.port_id == "p1" and found.ips == ("10.0.0.5",)
    assert found.allowed_pairs == (("fa:16:3e:00:00:01", "10.0.9.0/24"),)
    http, members = found.rules
    assert (http.protocol, http.port_range_min, http.remote_ips) == ("tcp", 80, None)
    assert members.remote_ips == ("10.0.0.9",)
