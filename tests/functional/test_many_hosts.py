"""An all-in-one of many simulated hosts: each has its service record, its hypervisor
and its resource provider once the cloud serves, and the scheduler chooses among all."""

import httpx

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
