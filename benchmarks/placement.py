"""GET /allocation_candidates latency over real HTTP, and claims per second.

For each size: a fresh SQLite database loaded with N flat compute providers as upstream's
perfload job lays them out (VCPU 32, MEMORY_MB 8192, DISK_GB 8192; each in 1-3 of 3
aggregates; every other one with a trait). Loading uses bulk SQL inserts (executemany),
not the API, so that 50,000 providers load in seconds. The real ASGI app is served by
uvicorn on a thread; the clients are other processes (as the scheduler is), and each
query is timed by its client, request sent to whole body received:

  a  Nova's query: resources=VCPU:1,MEMORY_MB:256,DISK_GB:10&limit=1000
  b  the same without a limit
  c  upstream perfload's query: (b) plus required=<trait>&member_of=<aggregate>

Then claims/s: PUT /allocations/{consumer} at microversion 1.39, one per candidate of
query (a), from --workers client processes at once (4 by default), each on its own
keep-alive connection and claiming its share one after another, as several scheduler
workers do; the figure is every claim over the time from the first sent to the last
answered. Prints medians, p95s and the ratio to upstream Placement 16.0.0
measured on this machine (shared/reference/placement.md: 1000 providers 0.133 s with
limit=1000 and 0.201 s without, 3000 providers 0.290 s / 0.439 s; beyond 3000 the
upstream figure is extrapolated linearly). The last line is JSON for the 10,000 (or
largest) size.

    python benchmarks/placement.py [--providers 1000,10000,50000] [--runs 30]
"""

from __future__ import annotations

import argparse
import json
import logging
import multiprocessing
import multiprocessing.pool
import random
import statistics
import sys
import tempfile
import time
import uuid

import httpx
import targets
import uvicorn
from sqlalchemy import insert, select

from novalite import http_server
from novalite.conf import CONF
from novalite.db import migration, session
from novalite.placement.candidates import snapshot as t

TRAIT = "HW_CPU_X86_AVX2"
CLASSES = {"VCPU": 32, "MEMORY_MB": 8192, "DISK_GB": 8192}
AGGS = [str(uuid.UUID(int=i + 1)) for i in range(3)]
NOVA = "resources=VCPU:1,MEMORY_MB:256,DISK_GB:10"
QUERIES = {"a": f"{NOVA}&limit=1000", "b": NOVA,
           "c": f"{NOVA}&required={TRAIT}&member_of={AGGS[0]}"}
# upstream Placement 16.0.0 on this machine, seconds: providers -> (limit=1000, all)
UPSTREAM = {1000: (0.133, 0.201), 3000: (0.290, 0.439)}
TARGETS_MS = targets.load("placement")["median_ms"]
TARGET_CLAIMS = targets.load("placement")["claims_per_s"]
HEADERS = {"OpenStack-API-Version": "placement 1.39"}


def upstream_seconds(providers: int, limited: bool) -> float:
    """Upstream's time at this size: measured, or on the line through 1000 and 3000."""
    col = 0 if limited else 1
    if providers in UPSTREAM:
        return UPSTREAM[providers][col]
    slope = (UPSTREAM[3000][col] - UPSTREAM[1000][col]) / 2000
    return UPSTREAM[1000][col] + slope * (providers - 1000)


def load(providers: int, rng: random.Random) -> float:
    """Bulk-insert the perfload topology; returns the seconds it took."""
    started = time.perf_counter()
    with session.writer() as s:
        conn = s.connection()
        rc_ids = {}
        for name in CLASSES:
            row = conn.execute(select(t.RC.c.id).where(t.RC.c.name == name)).first()
            rc_ids[name] = row[0] if row else conn.execute(
                insert(t.RC).values(name=name)).inserted_primary_key[0]
        trait_id = conn.execute(insert(t.TRAIT).values(name=TRAIT)).inserted_primary_key[0]
        conn.execute(insert(t.AGG), [{"id": i + 1, "uuid": a} for i, a in enumerate(AGGS)])
        conn.execute(insert(t.RP), [
            {"id": i, "uuid": str(uuid.UUID(int=rng.getrandbits(128))),
             "name": f"compute{i:06d}", "generation": 1, "root_provider_id": i}
            for i in range(1, providers + 1)])
        conn.execute(insert(t.INV), [
            {"resource_provider_id": i, "resource_class_id": rc_ids[rc], "total": total,
             "reserved": 0, "min_unit": 1, "max_unit": total, "step_size": 1,
             "allocation_ratio": 1.0}
            for i in range(1, providers + 1) for rc, total in CLASSES.items()])
        conn.execute(insert(t.RP_AGG), [
            {"resource_provider_id": i, "aggregate_id": agg}
            for i in range(1, providers + 1)
            for agg in rng.sample([1, 2, 3], rng.randint(1, 3))])
        conn.execute(insert(t.RP_TRAIT), [
            {"resource_provider_id": i, "trait_id": trait_id}
            for i in range(1, providers + 1, 2)])
    return time.perf_counter() - started


def serve() -> tuple[uvicorn.Server, str]:
    server = http_server.make_server("127.0.0.1", 0)
    http_server.freeze_heap()  # as novalite-api and the all-in-one do once started
    http_server.start_in_thread(server)
    return server, f"http://127.0.0.1:{http_server.bound_port(server)}/placement"


def time_query(url: str, qs: str, runs: int) -> tuple[list[float], list[dict]]:
    """Run in a client process, as a scheduler is one: a client thread in the server's
    process would take turns with it on the GIL while the body streams. Returns the
    times and the allocation requests."""
    times, body = [], {}
    with httpx.Client(base_url=url, headers=HEADERS, timeout=120) as client:
        for i in range(runs + 2):
            started = time.perf_counter()
            response = client.get(f"/allocation_candidates?{qs}")
            elapsed = time.perf_counter() - started  # the whole body received, as curl
            assert response.status_code == 200, response.text
            body = response.json()
            if i >= 2:  # two warm-up requests
                times.append(elapsed)
    return times, body["allocation_requests"]


def _claim_share(url: str, requests: list[dict]) -> tuple[float, float, list[str]]:
    """One scheduler worker: its own keep-alive connection, its claims one after another;
    returns when it started and ended (CLOCK_MONOTONIC, comparable across processes) and
    the consumers it claimed for."""
    consumers = [str(uuid.uuid4()) for _ in requests]
    with httpx.Client(base_url=url, headers=HEADERS, timeout=120) as client:
        client.get("/")  # connect before the clock starts
        started = time.monotonic()
        for consumer, cand in zip(consumers, requests, strict=True):
            payload = {"allocations": cand["allocations"], "project_id": "p", "user_id": "u",
                       "consumer_generation": None, "consumer_type": "INSTANCE"}
            response = client.put(f"/allocations/{consumer}", json=payload)
            assert response.status_code == 204, response.text
        return started, time.monotonic(), consumers


def claims(pool: multiprocessing.pool.Pool, url: str, requests: list[dict], count: int,
           workers: int) -> tuple[float, list[str]]:
    """Claims/s for `count` claims on the candidates in turn, shared out among `workers`
    client processes claiming at once, as a fleet of scheduler workers does (clients in the
    server's process would take its GIL); from the first claim sent to the last answered.
    Also returns the consumers claimed for."""
    requests = [requests[i % len(requests)] for i in range(count)]
    shares = [requests[i::workers] for i in range(workers)]
    spans = pool.starmap(_claim_share, [(url, share) for share in shares])
    rate = len(requests) / (max(end for _, end, _ in spans) - min(start for start, _, _ in spans))
    return rate, [consumer for _, _, consumers in spans for consumer in consumers]


def p95(values: list[float]) -> float:
    return sorted(values)[max(0, int(round(0.95 * len(values))) - 1)]


def measure(providers: int, runs: int, claim_count: int, seed: int,
            pool: multiprocessing.pool.Pool, workers: int) -> dict:
    with tempfile.TemporaryDirectory() as state:
        CONF.set_override("state_path", state)
        session.dispose()
        migration.db_sync()
        load_s = load(providers, random.Random(seed))
        server, url = serve()
        result: dict = {"providers": providers, "load_s": round(load_s, 2)}
        try:
            for key, qs in QUERIES.items():
                times, requests = pool.apply(time_query, (url, qs, runs))
                result[f"{key}_median_ms"] = round(statistics.median(times) * 1000, 2)
                result[f"{key}_p95_ms"] = round(p95(times) * 1000, 2)
                result[f"{key}_candidates"] = len(requests)
                upstream = upstream_seconds(providers, key == "a")
                result[f"{key}_x_faster_than_upstream"] = round(
                    upstream / statistics.median(times), 1)
            _, requests = pool.apply(time_query, (url, QUERIES["a"], 0))
            rate, _ = claims(pool, url, requests, min(claim_count, len(requests)), workers)
            result["claims_per_s"] = round(rate, 1)
        finally:
            server.should_exit = True
            session.dispose()
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--providers", default="1000,10000,50000")
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--claims", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--workers", type=int, default=4,
                        help="client processes claiming at once (scheduler workers)")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    CONF([], project="novalite", default_config_files=[])
    # Placement's own cost, as upstream's perfload job measures it: no token checks.
    CONF.set_override("auth_strategy", "noauth2", group="api")
    print(f"{'providers':>9} {'load s':>7} | {'query':>5} {'ms med':>8} {'ms p95':>8} "
          f"{'cands':>6} {'vs upstream':>11} | {'claims/s':>8}", flush=True)
    # Spawned (not forked: the server runs on a thread), and every one up and imported
    # before the first query is timed.
    spawn = multiprocessing.get_context("spawn")
    ready = spawn.Barrier(args.workers + 1)
    with spawn.Pool(args.workers, initializer=ready.wait) as pool:
        ready.wait()
        results = [measure(n, args.runs, args.claims, args.seed, pool, args.workers)
                   for n in [int(x) for x in args.providers.split(",") if x]]
    for r in results:
        providers = r["providers"]
        for key in QUERIES:
            print(f"{providers:>9} {r['load_s']:>7} | {key:>5} {r[f'{key}_median_ms']:>8} "
                  f"{r[f'{key}_p95_ms']:>8} {r[f'{key}_candidates']:>6} "
                  f"{r[f'{key}_x_faster_than_upstream']:>10}x | "
                  f"{r['claims_per_s']:>8}",
                  flush=True)
    final = next((r for r in results if r["providers"] == 10000), results[-1])
    if final["providers"] != 10000:
        print("(the targets are set at 10,000 providers; judging the last size run)")
    for key, target in TARGETS_MS.items():
        verdict = "meets" if final[f"{key}_median_ms"] <= target else "MISSES"
        print(f"{final['providers']} providers: query {key} median "
              f"{final[f'{key}_median_ms']} ms {verdict} the {target} ms target", flush=True)
    verdict = "meets" if final["claims_per_s"] >= TARGET_CLAIMS else "MISSES"
    print(f"{final['claims_per_s']} claims/s {verdict} the {TARGET_CLAIMS} target",
          flush=True)
    print(json.dumps({"providers": final["providers"], "median_ms": final["a_median_ms"],
                      "p95_ms": final["a_p95_ms"], "claims_per_s": final["claims_per_s"],
                      "sizes": results}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
