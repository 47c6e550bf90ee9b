"""The host's agent (the part of Neutron's Linux bridge agent that keeps a host's
firewall and reports its devices, or Nova's libvirt firewall driver of old): it reads
from the network service, over HTTP as the compute does, the compute ports bound to this
host, their groups' rules and the addresses of the ports in the groups the rules name,
and makes the host's nftables rules (novalite.datapath.firewall) say the same; then it
reports the ports whose devices are wired here and still DOWN, which the network service
makes ACTIVE.

It runs before each guest starts (a guest never sends unfiltered, and its build waits
for its ports to be confirmed as Nova waits for network-vif-plugged), and every [agent]
polling_interval after, so a rule changed through the API reaches running guests within
that, and a port bound here by a live migration goes ACTIVE. The ruleset is replaced
only when the installed one (its digest) differs, whoever installed that: a namespace
made again, or another agent's rules, are noticed."""

from __future__ import annotations

import logging
import threading
import time

from novalite import exception
from novalite.clients import neutron
from novalite.conf import CONF
from novalite.datapath import firewall, linux, names

LOG = logging.getLogger(__name__)


def _rule(rule: dict, members: dict[str, tuple[str, ...]]) -> firewall.Rule:
    remote = rule.get("remote_group_id")
    return firewall.Rule(
        direction=rule["direction"], ethertype=rule.get("ethertype") or "IPv4",
        protocol=rule.get("protocol"), port_range_min=rule.get("port_range_min"),
        port_range_max=rule.get("port_range_max"),
        remote_ip_prefix=rule.get("remote_ip_prefix"),
        remote_ips=members.get(remote, ()) if remote else None)


def host_ports(client: neutron.Client, host: str) -> list[dict]:
    return [p for p in client.list("ports", **{"binding:host_id": host})
            if p["device_owner"].startswith("compute:")]


def port_filters(client: neutron.Client, ports: list[dict]) -> list[firewall.PortFilter]:
    """What the network service says the host's ports may send and receive."""
    groups = sorted({g for p in ports for g in p.get("security_groups") or ()})
    rules = client.list("security-group-rules", security_group_id=groups) if groups else []
    remote = sorted({r["remote_group_id"] for r in rules if r.get("remote_group_id")})
    members: dict[str, tuple[str, ...]] = {}
    for member in client.list("ports", security_groups=remote) if remote else []:
        addresses = tuple(ip["ip_address"] for ip in member.get("fixed_ips") or ())
        for group in member.get("security_groups") or ():
            members[group] = members.get(group, ()) + addresses
    by_group: dict[str, list[firewall.Rule]] = {}
    for rule in rules:
        by_group.setdefault(rule["security_group_id"], []).append(_rule(rule, members))
    return [firewall.PortFilter(
        port_id=p["id"], mac=p["mac_address"],
        ips=tuple(ip["ip_address"] for ip in p.get("fixed_ips") or ()),
        allowed_pairs=tuple((pair.get("mac_address") or p["mac_address"], pair["ip_address"])
                            for pair in p.get("allowed_address_pairs") or ()),
        secured=bool(p.get("port_security_enabled", True)),
        rules=tuple(r for g in p.get("security_groups") or () for r in by_group.get(g, ())))
        for p in sorted(ports, key=lambda p: p["id"])]


class SecurityGroupAgent:
    def __init__(self, host: str) -> None:
        self.host = host
        self.namespace = names.host_namespace(host)  # this cloud's, fixed at the start
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        # ports plugged here for a live migration, still bound to its source
        self._incoming: set[str] = set()

    def start(self) -> None:
        self._thread = threading.Thread(target=self._loop, daemon=True,
                                        name=f"security-groups-{self.host}")
        self._thread.start()

    def stop(self) -> None:
        """Stop, once a pass under way has finished (a later agent owns the rules)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=60)

    def _loop(self) -> None:
        while not self._stop.wait(CONF.agent.polling_interval):
            try:
                self.sync()
            except Exception:  # the next pass tries again
                LOG.warning("Security group sync of %s failed", self.host, exc_info=True)

    def sync(self) -> None:
        """Make the host's rules match the network service's, then report the wired
        ports it still has DOWN (raises when it cannot)."""
        if self.namespace not in linux.namespaces():
            return  # nothing plugged here yet; plugging makes it, then syncs
        client = neutron.Client(admin=True)
        ports = host_ports(client, self.host)
        wired = set(linux.links(self.namespace))
        with self._lock:
            self._incoming = {i for i in self._incoming if i not in {p["id"] for p in ports}
                              and names.port_device(i) in wired}
            incoming = sorted(self._incoming)
        arriving = client.list("ports", id=incoming) if incoming else []
        filters = port_filters(client, ports + arriving)
        script = firewall.ruleset(filters)
        with self._lock:
            if firewall.installed(self.namespace) != firewall.digest(script):
                firewall.apply(self.namespace, script)
                LOG.info("Applied the security groups of %d ports on %s", len(filters),
                         self.host)
        down = [p["id"] for p in ports if p["status"] == "DOWN" and p["admin_state_up"]
                and names.port_device(p["id"]) in wired]
        if down:
            client.devices_up(self.host, down)

    def expect(self, port_ids: list[str]) -> None:
        """Filter ports plugged here for a live migration before the guest runs here:
        they are bound to the source until it has (Neutron gives the destination an
        inactive binding for this). Each is forgotten once bound here, or once its
        device is gone (the migration rolled back)."""
        with self._lock:
            self._incoming.update(port_ids)
        self.sync()

    def confirm(self, port_ids: list[str]) -> None:
        """Filter the guest's newly plugged ports and have the network service confirm
        them up before it starts, retried for [DEFAULT] vif_plugging_timeout seconds (0:
        one try, never fatal). Rules never applied fail the start whatever the options
        say (a guest never sends unfiltered); ports not confirmed fail it when
        vif_plugging_is_fatal, as Nova's missing network-vif-plugged events do."""
        deadline = time.monotonic() + CONF.vif_plugging_timeout
        filtered = False
        while True:
            try:
                self.sync()
                filtered = True
                failed = neutron.Client(admin=True).devices_up(self.host, port_ids)
                problem = f"ports {', '.join(failed)} are not bound to {self.host}"
            except (neutron.NeutronError, neutron.NeutronUnavailable) as exc:
                failed, problem = tuple(port_ids), str(exc)
            if not failed or time.monotonic() >= deadline:
                break
            time.sleep(1)
        if not failed:
            return
        if not filtered or (CONF.vif_plugging_is_fatal and CONF.vif_plugging_timeout):
            raise exception.VirtualInterfaceCreateException(reason=problem)
        LOG.warning("The network service did not confirm the ports of a guest on %s: "
                    "%s; starting it anyway", self.host, problem)
