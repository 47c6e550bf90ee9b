"""Network service: port creation under 8 concurrent clients, and a server list whose
servers each have a port.

Starts the all-in-one as its own process (SQLite, fake driver, noauth2), then:
1. ports: 8 clients create `--ports` ports on one network (a /16) as fast as they can;
   prints p50/p95 create latency and ports/s (target >= 300/s on SQLite);
2. servers: boots `--servers` servers with a port each (one request, max_count), waits
   for them ACTIVE, then times GET /servers/detail (target <= 150 ms for 1,000) and
   counts the network-service requests the list made (must be 0: addresses come from the
   instances' cached network info).

The last line is JSON.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import statistics
import sys
import tempfile
import time

import httpx

sys.path.insert(0, os.path.dirname(__file__))
from boot_storm import IMAGE_ID, free_port, percentile, start_cloud  # noqa: E402

CLIENTS = 8


def _unlimited_ports(net: httpx.Client) -> None:
    """The benchmark makes more ports than a project may (noauth2: no token is admin)."""
    net.put("/quotas/admin", json={"quota": {"port": -1}}).raise_for_status()


def _network(net: httpx.Client, cidr: str) -> str:
    network = net.post("/networks", json={"network": {"name": f"bench-{cidr}"}})
    network.raise_for_status()
    net_id = network.json()["network"]["id"]
    net.post("/subnets", json={"subnet": {"network_id": net_id, "cidr": cidr,
                                          "ip_version": 4}}).raise_for_status()
    return net_id


def ports(net: httpx.Client, count: int) -> dict:
    net_id = _network(net, "10.64.0.0/16")
    latencies: list[float] = []

    def create(_: int) -> None:
        started = time.perf_counter()
        net.post("/ports", json={"port": {"network_id": net_id}}).raise_for_status()
        latencies.append(time.perf_counter() - started)

    t0 = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(CLIENTS) as pool:
        list(pool.map(create, range(count)))
    wall = time.perf_counter() - t0
    return {"ports": count, "clients": CLIENTS, "ports_per_s": round(count / wall, 1),
            "p50_ms": round(statistics.median(latencies) * 1000, 1),
            "p95_ms": round(percentile(latencies, 95) * 1000, 1)}


def _network_requests(log_path: str) -> int:
    with open(log_path) as log:
        return sum(1 for line in log if '"GET /networking' in line
                   or '"POST /networking' in line or '"PUT /networking' in line)


def servers(base: str, net: httpx.Client, count: int, log_path: str) -> dict:
    net_id = _network(net, "10.128.0.0/16")
    api = httpx.Client(base_url=f"{base}/compute/v2.1", timeout=600)
    made = api.post("/servers", json={"server": {
        "name": "bench", "flavorRef": "1", "imageRef": IMAGE_ID, "min_count": count,
        "max_count": count, "networks": [{"uuid": net_id}]}},
        headers={"X-OpenStack-Nova-API-Version": "2.37"})
    made.raise_for_status()
    deadline = time.monotonic() + 900
    while len(api.get("/servers", params={"status": "ACTIVE"}).json()["servers"]) < count:
        assert time.monotonic() < deadline, "servers did not all go ACTIVE"
        time.sleep(1)
    before = _network_requests(log_path)
    timings = []
    for _ in range(5):
        started = time.perf_counter()
        listed = api.get("/servers/detail", params={"limit": count})
        timings.append(time.perf_counter() - started)
        listed.raise_for_status()
    time.sleep(0.5)  # the access log line of the last request
    with_address = sum(1 for s in listed.json()["servers"] if s["addresses"])
    return {"servers": count, "with_address": with_address,
            "detail_ms_median": round(statistics.median(timings) * 1000, 1),
            "detail_ms_min": round(min(timings) * 1000, 1),
            "network_requests_during_list": _network_requests(log_path) - before}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ports", type=int, default=800)
    parser.add_argument("--servers", type=int, default=1000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as state_dir:
        port = free_port()
        proc = start_cloud(state_dir, port, hosts=8)
        base = f"http://127.0.0.1:{port}"
        net = httpx.Client(base_url=f"{base}/networking/v2.0", timeout=120,
                           limits=httpx.Limits(max_connections=CLIENTS + 2))
        try:
            _unlimited_ports(net)
            result = {"port_create": ports(net, args.ports),
                      "server_list": servers(base, net, args.servers,
                                             os.path.join(state_dir, "all-in-one.log"))}
        finally:
            proc.terminate()
            proc.wait(60)
    print(f"port create: {result['port_create']['ports_per_s']} ports/s with {CLIENTS} "
          f"clients, p50 {result['port_create']['p50_ms']} ms, p95 "
          f"{result['port_create']['p95_ms']} ms (target >= 300/s)")
    print(f"GET /servers/detail with {args.servers} servers with a port: median "
          f"{result['server_list']['detail_ms_median']} ms (target <= 150 ms), network "
          f"requests during the list: {result['server_list']['network_requests_during_list']}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
