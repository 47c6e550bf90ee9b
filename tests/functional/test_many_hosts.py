"""An all-in-one of many simulated hosts: each has its service record, its hypervisor
and its resource provider once the cloud serves, the scheduler chooses among all, and
their periodic reports read for many hosts at once."""

import threading

import httpx

from novalite.conductor.rpcapi import ConductorAPI
from tests.waiting import wait_for

HOSTS = 50


def test_many_simulated_hosts_come_up_and_take_a_boot(cloud_factory):
    cloud = cloud_factory(hosts=HOSTS)
    services = cloud.api.get("/os-services").json()["services"]
    hypervisors = cloud.api.get("/os-hypervisors").json()["hypervisors"]
    providers = httpx.get(f"{cloud.base_url}/placement/resource_providers",
                          timeout=30).json()["resource_providers"]
    names = {f"compute{i}" for i in range(1, HOSTS + 1)}
    assert {s["host"] for s in services if s["binary"].endswith("-compute")} == names
    assert {h["hypervisor_hostname"] for h in hypervisors} == names
    assert {p["name"] for p in providers} == names
    server = cloud.wait_status(cloud.boot("one"), "ACTIVE", "ERROR")
    assert server["status"] == "ACTIVE" and server["OS-EXT-SRV-ATTR:host"] in names


def test_hosts_whose_resource_reports_come_due_together_read_what_they_hold_at_once(
        cloud_factory, conf, monkeypatch):
    """Each host's periodic report reads the instances and moves placed on it; the hosts
    of one process read them in one call when their reports come due together, and
    every host still counts exactly what it holds."""
    conf.set_override("update_resources_interval", 1)
    batched = []
    real = ConductorAPI.migration_get_in_progress_by_hosts

    def by_hosts(self, ctx, hosts):
        if threading.current_thread().name == "periodic-novalite-compute":
            batched.append(len(hosts))
        return real(self, ctx, hosts)

    monkeypatch.setattr(ConductorAPI, "migration_get_in_progress_by_hosts", by_hosts)
    cloud = cloud_factory(hosts=5)
    server = cloud.wait_status(cloud.boot("one"), "ACTIVE")
    seen = len(wait_for(lambda: [n for n in batched if n > 1], what="a batched report"))
    wait_for(lambda: len([n for n in batched if n > 1]) > seen,
             what="a batched report after the boot")
    used = {h["hypervisor_hostname"]: h["vcpus_used"]
            for h in cloud.api.get("/os-hypervisors/detail").json()["hypervisors"]}
    assert used == {f"compute{i}": int(f"compute{i}" == server["OS-EXT-SRV-ATTR:host"])
                    for i in range(1, 6)}
