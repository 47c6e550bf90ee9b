"""GET /servers/detail latency over real HTTP with 1,000 and 10,000 servers.

For each size: a fresh SQLite database holding N servers of one project, each with 3
metadata items and 2 tags (bulk SQL inserts, not the API, so 10,000 load in seconds).
The real ASGI app is served by uvicorn on a thread; the client is another process, and
each request is timed by it, sent to whole body received. The server's process does
nothing else meanwhile, so its CPU time over the requests, per request, is the cost of one
answer, which other load on the machine inflates much less than the wall times:

  page   GET /servers/detail?limit=1000 at 2.26 (tags in the view), as a non-admin
  small  the same with limit=100: the cost should follow the page, not the total

Prints medians and p95s per size and the ratio of the 1,000-page's median at the
largest size to the smallest (≈1 when the cost is linear in the page, not the total).
Target: ≤ 100 ms for the 1,000 page at 1,000 servers. The last line is JSON.

    python benchmarks/api.py [--servers 1000,10000] [--runs 30]
"""

from __future__ import annotations

import argparse
import datetime
import json
import logging
import multiprocessing
import statistics
import sys
import tempfile
import time
import uuid

import httpx
from sqlalchemy import insert

from novalite import http_server
from novalite.conf import CONF
from novalite.db import migration, models, session

PROJECT = "bench-project"
HEADERS = {"X-Auth-Token": f"bench:{PROJECT}", "X-OpenStack-Nova-API-Version": "2.26"}
QUERIES = {"page": "limit=1000", "small": "limit=100"}
TARGET_MS = 100.0
FLAVOR = {"cur": {"flavorid": "1", "name": "m1.tiny", "memory_mb": 512, "vcpus": 1,
                  "root_gb": 1, "ephemeral_gb": 0, "swap": 0, "extra_specs": {}},
          "old": None, "new": None}


def load(servers: int) -> float:
    """N active servers spread over 10 hosts, a second apart, with metadata and tags."""
    started = time.perf_counter()
    base = datetime.datetime(2026, 1, 1)
    rows, meta, tags = [], [], []
    for i in range(servers):
        server = str(uuid.uuid4())
        rows.append({"uuid": server, "display_name": f"vm-{i}", "hostname": f"vm-{i}",
                     "project_id": PROJECT, "user_id": "bench", "image_ref": str(uuid.UUID(
                         int=1)), "flavor": FLAVOR, "instance_type_id": 1, "vcpus": 1,
                     "memory_mb": 512, "root_gb": 1, "ephemeral_gb": 0,
                     "host": f"host{i % 10}", "node": f"host{i % 10}",
                     "vm_state": "active", "power_state": 1, "availability_zone": "nova",
                     "launched_at": base, "created_at": base + datetime.timedelta(seconds=i),
                     "deleted": 0, "locked": False})
        meta += [{"instance_uuid": server, "key": f"k{k}", "value": f"v{i}-{k}",
                  "deleted": 0} for k in range(3)]
        tags += [{"resource_id": server, "tag": t} for t in ("web", f"shard-{i % 7}")]
    with session.writer() as s:
        s.execute(insert(models.Instance), rows)
        s.execute(insert(models.InstanceMetadata), meta)
        s.execute(insert(models.Tag), tags)
    return time.perf_counter() - started


def time_query(url: str, qs: str, runs: int) -> tuple[list[float], int]:
    """In a client process: a client thread in the server's process would share its GIL."""
    times, count = [], 0
    with httpx.Client(base_url=url, headers=HEADERS, timeout=120) as client:
        for i in range(runs + 2):
            started = time.perf_counter()
            response = client.get(f"/servers/detail?{qs}")
            elapsed = time.perf_counter() - started
            assert response.status_code == 200, response.text
            count = len(response.json()["servers"])
            if i >= 2:  # two warm-up requests
                times.append(elapsed)
    return times, count


def p95(values: list[float]) -> float:
    return sorted(values)[max(0, int(round(0.95 * len(values))) - 1)]


def measure(servers: int, runs: int, pool: multiprocessing.pool.Pool) -> dict:
    with tempfile.TemporaryDirectory() as state:
        CONF.set_override("state_path", state)
        session.dispose()
        migration.db_sync()
        result: dict = {"servers": servers, "load_s": round(load(servers), 2)}
        server = http_server.make_server("127.0.0.1", 0)
        http_server.start_in_thread(server)
        http_server.freeze_heap()  # as novalite-api does once it serves
        url = f"http://127.0.0.1:{http_server.bound_port(server)}/compute/v2.1"
        try:
            for key, qs in QUERIES.items():
                cpu = time.process_time()
                times, count = pool.apply(time_query, (url, qs, runs))
                result[f"{key}_cpu_ms"] = round(
                    (time.process_time() - cpu) / (runs + 2) * 1000, 2)
                result[f"{key}_median_ms"] = round(statistics.median(times) * 1000, 2)
                result[f"{key}_p95_ms"] = round(p95(times) * 1000, 2)
                result[f"{key}_servers"] = count
        finally:
            server.should_exit = True
            session.dispose()
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--servers", default="1000,10000")
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    CONF([], project="novalite", default_config_files=[])
    CONF.set_override("auth_strategy", "noauth2", group="api")
    print(f"{'servers':>8} {'load s':>7} | {'page ms med':>11} {'p95':>7} {'cpu':>7} | "
          f"{'limit=100 med':>13} {'p95':>7} {'cpu':>7}", flush=True)
    results = []
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        for size in (int(s) for s in args.servers.split(",")):
            r = measure(size, args.runs, pool)
            results.append(r)
            print(f"{r['servers']:>8} {r['load_s']:>7} | {r['page_median_ms']:>11} "
                  f"{r['page_p95_ms']:>7} {r['page_cpu_ms']:>7} | "
                  f"{r['small_median_ms']:>13} {r['small_p95_ms']:>7} "
                  f"{r['small_cpu_ms']:>7}", flush=True)
    first, last = results[0], results[-1]
    summary = {"results": results, "target_ms_at_1000": TARGET_MS,
               "page_ms_at_smallest": first["page_median_ms"],
               "meets_target": first["page_median_ms"] <= TARGET_MS,
               "page_ratio_largest_to_smallest": round(
                   last["page_median_ms"] / first["page_median_ms"], 2),
               "page_cpu_ratio_largest_to_smallest": round(
                   last["page_cpu_ms"] / first["page_cpu_ms"], 2),
               "page_to_small_ratio_at_largest": round(
                   last["page_median_ms"] / last["small_median_ms"], 2)}
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
