"""Placement claim throughput: serve only the HTTP app on a fresh SQLite database in its
own process, create providers, then PUT /allocations/{consumer} from several client
threads. Prints claims/s and p50/p95 latency; the last line is JSON.

Target (the placement brief): >= 500 claims/s on SQLite through HTTP.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid

import httpx

SERVER = """
import sys
from novalite import http_server
from novalite.conf import CONF
from novalite.db import migration
CONF([], project="novalite", default_config_files=[])
CONF.set_override("state_path", sys.argv[1])
CONF.set_override("auth_strategy", "noauth2", group="api")  # placement's own cost
migration.db_sync()
server = http_server.make_server("127.0.0.1", int(sys.argv[2]))
http_server.freeze_heap()
http_server.run_foreground(server)
"""
HEADERS = {"OpenStack-API-Version": "placement latest"}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start(state_dir: str, port: int) -> subprocess.Popen:
    log = open(os.path.join(state_dir, "api.log"), "w")  # noqa: SIM115
    proc = subprocess.Popen([sys.executable, "-c", SERVER, state_dir, str(port)],
                            stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/placement/", timeout=1).status_code == 200:
                return proc
        except httpx.HTTPError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit(f"the API did not start; see {log.name}")


def make_providers(api: httpx.Client, count: int) -> list[str]:
    uuids = []
    for i in range(count):
        rp = api.post("/resource_providers", json={"name": f"cn{i}"}).json()
        api.put(f"/resource_providers/{rp['uuid']}/inventories", json={
            "resource_provider_generation": 0,
            "inventories": {"VCPU": {"total": 100000}, "MEMORY_MB": {"total": 10**8}}})
        uuids.append(rp["uuid"])
    return uuids


def claim(api: httpx.Client, rp_uuid: str) -> float:
    started = time.perf_counter()
    response = api.put(f"/allocations/{uuid.uuid4()}", json={
        "allocations": {rp_uuid: {"resources": {"VCPU": 1, "MEMORY_MB": 512}}},
        "project_id": "p", "user_id": "u", "consumer_generation": None,
        "consumer_type": "INSTANCE"})
    assert response.status_code == 204, response.text
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--claims", type=int, default=2000)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--providers", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as state_dir:
        port = free_port()
        proc = start(state_dir, port)
        try:
            base = f"http://127.0.0.1:{port}/placement"
            with httpx.Client(base_url=base, headers=HEADERS) as api:
                providers = make_providers(api, args.providers)
            clients = [httpx.Client(base_url=base, headers=HEADERS)
                       for _ in range(args.threads)]
            started = time.perf_counter()
            with concurrent.futures.ThreadPoolExecutor(args.threads) as pool:
                latencies = list(pool.map(
                    lambda i: claim(clients[i % args.threads], providers[i % args.providers]),
                    range(args.claims)))
            elapsed = time.perf_counter() - started
        finally:
            proc.terminate()
            proc.wait(30)
    latencies.sort()
    result = {"claims": args.claims, "threads": args.threads,
              "claims_per_s": round(args.claims / elapsed, 1),
              "p50_ms": round(statistics.median(latencies) * 1000, 2),
              "p95_ms": round(latencies[int(len(latencies) * 0.95)] * 1000, 2)}
    print(f"{result['claims_per_s']} claims/s, p50 {result['p50_ms']} ms, "
          f"p95 {result['p95_ms']} ms")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
