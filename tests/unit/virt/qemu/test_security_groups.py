"""What the host's security-group agent makes of the network service's answers, and
how it has a guest's ports confirmed before the guest starts."""

import pytest

from novalite import exception
from novalite.clients import neutron
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
    client = FakeClient()
    found, = security_groups.port_filters(client, security_groups.host_ports(client, "c1"))
    assert found.port_id == "p1" and found.ips == ("10.0.0.5",)
    assert found.allowed_pairs == (("fa:16:3e:00:00:01", "10.0.9.0/24"),)
    http, members = found.rules
    assert (http.protocol, http.port_range_min, http.remote_ips) == ("tcp", 80, None)
    assert members.remote_ips == ("10.0.0.9",)


class Clock:
    """time.monotonic and time.sleep for the confirming loop, without waiting."""

    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def agent(conf, monkeypatch):
    """An agent whose rules apply at once and whose network service gives, one report
    after another, the answers in `agent.answers` (the ports it did not take as up, or
    an error to raise), the last one from then on."""
    found = security_groups.SecurityGroupAgent("c1")
    found.answers = [[]]  # type: ignore[attr-defined]
    found.reports = 0  # type: ignore[attr-defined]

    class Client:
        def __init__(self, *args, **kwargs) -> None:
            pass

        def devices_up(self, host, port_ids):
            found.reports += 1
            answer = found.answers.pop(0) if len(found.answers) > 1 else found.answers[0]
            if isinstance(answer, Exception):
                raise answer
            return answer

    monkeypatch.setattr(security_groups.neutron, "Client", Client)
    monkeypatch.setattr(security_groups, "time", Clock())
    monkeypatch.setattr(found, "sync", lambda: None)
    return found


def test_confirmed_ports_let_the_guest_start(agent):
    agent.confirm(["p1"])
    assert agent.reports == 1


def test_ports_not_confirmed_in_time_fail_the_start_when_fatal(agent, conf):
    conf.set_override("vif_plugging_timeout", 5)
    agent.answers = [["p1"]]
    with pytest.raises(exception.VirtualInterfaceCreateException, match="not bound to c1"):
        agent.confirm(["p1"])
    assert agent.reports == 6  # tried for the whole timeout, once a second


def test_a_network_service_away_for_a_while_is_waited_for(agent, conf):
    conf.set_override("vif_plugging_timeout", 5)
    agent.answers = [neutron.NeutronUnavailable(reason="refused"), []]
    agent.confirm(["p1"])
    assert agent.reports == 2


@pytest.mark.parametrize("timeout, fatal", [(5, False), (0, True)])
def test_ports_not_confirmed_start_anyway_unless_fatal(agent, conf, timeout, fatal):
    conf.set_override("vif_plugging_timeout", timeout)
    conf.set_override("vif_plugging_is_fatal", fatal)
    agent.answers = [["p1"]]
    agent.confirm(["p1"])


def test_rules_never_applied_fail_the_start_whatever_the_options(agent, conf, monkeypatch):
    conf.set_override("vif_plugging_timeout", 0)
    conf.set_override("vif_plugging_is_fatal", False)

    def unreachable() -> None:
        raise neutron.NeutronUnavailable(reason="refused")
    monkeypatch.setattr(agent, "sync", unreachable)
    with pytest.raises(exception.VirtualInterfaceCreateException, match="unavailable"):
        agent.confirm(["p1"])


def _port(port_id: str) -> dict:
    return {"id": port_id, "device_owner": "compute:nova", "status": "ACTIVE",
            "admin_state_up": True, "mac_address": "fa:16:3e:00:00:01",
            "fixed_ips": [{"ip_address": "10.0.0.5"}], "security_groups": []}


def test_a_live_migrations_ports_are_filtered_before_they_move_here(conf, monkeypatch):
    """Expected ports are filtered until bound here; a rolled-back one (its tap gone)
    is forgotten."""
    agent = security_groups.SecurityGroupAgent("dest")
    bound: list[dict] = []
    taps = {"lo"}
    applied: list[set[str]] = []

    class Client:
        def __init__(self, *args, **kwargs) -> None:
            pass

        def list(self, collection, **filters):
            if "binding:host_id" in filters:
                return bound
            return [_port(i) for i in filters["id"]]

    monkeypatch.setattr(security_groups.neutron, "Client", Client)
    monkeypatch.setattr(security_groups.linux, "namespaces", lambda: {agent.namespace})
    monkeypatch.setattr(security_groups.linux, "links", lambda namespace: set(taps))
    monkeypatch.setattr(security_groups.firewall, "installed", lambda namespace: None)
    monkeypatch.setattr(security_groups.firewall, "ruleset",
                        lambda filters: {f.port_id for f in filters})
    monkeypatch.setattr(security_groups.firewall, "digest", lambda script: "")
    monkeypatch.setattr(security_groups.firewall, "apply",
                        lambda namespace, script: applied.append(script))

    taps.update({"tapmoving", "tapundone"})
    agent.expect(["moving", "undone"])
    assert applied[-1] == {"moving", "undone"}  # bound to the source still
    bound.append(_port("moving"))
    taps.discard("tapundone")  # that migration rolled back
    agent.sync()
    assert applied[-1] == {"moving"} and agent._incoming == set()
