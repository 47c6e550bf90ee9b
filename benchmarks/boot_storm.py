"""Boot storm: start the all-in-one (fake driver) as its own process, boot N servers through
the HTTP API concurrently, then delete them all.

Prints servers/s from the first POST to the last ACTIVE, p50/p95 boot latency (POST to
first seen ACTIVE), and delete throughput (first DELETE to the last one gone). The last
line is JSON.
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
import threading
import time

import httpx

IMAGE_ID = "a3c0d5e6-7d1f-4b3a-9b8e-6e0c1f0a1a01"  # seeded by the all-in-one


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _unlimited_quota(state_dir: str) -> str:
    """A storm boots far beyond a project's default quota."""
    path = os.path.join(state_dir, "quota.conf")
    with open(path, "w") as conf:
        conf.write("[quota]\ninstances = -1\ncores = -1\nram = -1\n")
    return path


def start_cloud(state_dir: str, port: int, hosts: int) -> subprocess.Popen:
    log = open(os.path.join(state_dir, "all-in-one.log"), "w")  # noqa: SIM115
    proc = subprocess.Popen(
        [sys.executable, "-m", "novalite.cmd.novalite", "all-in-one", "--state-dir", state_dir,
         "--port", str(port), "--hosts", str(hosts), "--listen", "127.0.0.1",
         "--config-file", _unlimited_quota(state_dir)],
        stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/compute/", timeout=1).status_code == 200:
                return proc
        except httpx.HTTPError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit(f"the all-in-one did not start; see {log.name}")


def percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(pct / 100 * (len(ordered) - 1))))]


def watch(api: httpx.Client, count: int, seen: dict, stop: threading.Event) -> None:
    """Record when each server is first listed ACTIVE or ERROR. The short index with a
    status filter keeps the measuring from loading the cloud it measures."""
    while not stop.is_set() and len(seen) < count:
        for status in ("ACTIVE", "ERROR"):
            servers = api.get("/servers", params={"status": status}).json()["servers"]
            now = time.perf_counter()
            for server in servers:
                seen.setdefault(server["id"], (now, status))
        time.sleep(0.02)


def storm(base: str, count: int, concurrency: int, flavor: str) -> dict:
    api = httpx.Client(base_url=f"{base}/compute/v2.1", timeout=60,
                       limits=httpx.Limits(max_connections=concurrency + 2))
    posted: dict[str, float] = {}
    finished: dict[str, tuple[float, str]] = {}

    def boot(i: int) -> None:
        started = time.perf_counter()
        response = api.post("/servers", json={"server": {
            "name": f"storm-{i}", "flavorRef": flavor, "imageRef": IMAGE_ID}})
        response.raise_for_status()
        posted[response.json()["server"]["id"]] = started

    stop = threading.Event()
    watcher = threading.Thread(target=watch, args=(api, count, finished, stop))
    t0 = time.perf_counter()
    watcher.start()
    with concurrent.futures.ThreadPoolExecutor(concurrency) as pool:
        list(pool.map(boot, range(count)))
    watcher.join(timeout=600)
    active = {i: t for i, (t, status) in finished.items() if status == "ACTIVE"}
    errors = len(finished) - len(active)
    boot_wall = max(active.values(), default=t0) - t0
    latencies = [active[i] - posted[i] for i in posted if i in active]

    t1 = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(concurrency) as pool:
        list(pool.map(lambda i: api.delete(f"/servers/{i}").raise_for_status(), posted))
    while api.get("/servers").json()["servers"]:
        time.sleep(0.02)
    delete_wall = time.perf_counter() - t1
    stop.set()
    return {
        "servers": count, "active": len(latencies), "errors": errors,
        "servers_per_s": round(len(latencies) / boot_wall, 1) if boot_wall else 0.0,
        "boot_wall_s": round(boot_wall, 2),
        "p50_boot_s": round(statistics.median(latencies), 3) if latencies else None,
        "p95_boot_s": round(percentile(latencies, 95), 3) if latencies else None,
        "deletes_per_s": round(count / delete_wall, 1),
        "concurrency": concurrency,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--servers", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--hosts", type=int, default=4)
    parser.add_argument("--flavor", default="1")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="novalite-bench-") as state:
        port = free_port()
        proc = start_cloud(state, port, args.hosts)
        try:
            result = storm(f"http://127.0.0.1:{port}", args.servers, args.concurrency,
                           args.flavor)
        finally:
            proc.terminate()
            proc.wait(timeout=60)
    print(f"boot storm: {result['active']}/{result['servers']} ACTIVE on {args.hosts} hosts "
          f"in {result['boot_wall_s']} s -> {result['servers_per_s']} servers/s; "
          f"boot latency p50 {result['p50_boot_s']} s, p95 {result['p95_boot_s']} s; "
          f"deletes {result['deletes_per_s']}/s")
    print(f"baseline for the 100 servers/s goal: {result['servers_per_s'] / 100:.2f}x")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
