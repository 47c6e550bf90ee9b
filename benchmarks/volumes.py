"""Volumes: create, attach, detach and delete cycles on the all-in-one, and the time a
volume takes to reach a server (POST os-volume_attachments to `in-use`).

Starts the all-in-one as its own process (SQLite, noauth2), boots `--servers` servers,
then `--concurrency` clients each run cycles until `--cycles` are done: create a 1 GB
volume and wait for `available`, attach it to a server and wait for `in-use`, detach
and wait for `available`, delete and wait until it is gone. Prints cycles/s (target:
>= 50/s on the fake driver) and the p50/p95 of each step. With `--driver qemu` the
servers are real guests and the attach step is a hot-plug over NBD (target: p50 <= 1 s).
On the fake driver it then makes `--listed` volumes and times `GET /volumes/detail`
(what `openstack volume list --long` asks) listing them all.

The last line is JSON.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import itertools
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable

import httpx

sys.path.insert(0, os.path.dirname(__file__))
import targets  # noqa: E402
from boot_storm import IMAGE_ID, MARKER, _cpu_seconds, free_port, percentile, start_cloud  # noqa: E402

VOLUME_VERSION = {"OpenStack-API-Version": "volume 3.70"}
STEPS = ("create", "attach", "detach", "delete")
# A wait polls at 20 ms, then half as often again each time, up to every 100 ms (real
# clients poll every 1-3 s): polling every 20 ms throughout, 8 clients loaded the cloud
# with ~35 status reads a cycle (10.1 cycles/s, attach p50 337 ms, against 14.1 and 164
# ms at 100 ms), measuring mostly themselves.
POLL, POLL_MAX = 0.02, 0.1


def _until(check: Callable[[], bool], what: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    delay = POLL
    while not check():
        if time.monotonic() > deadline:
            raise SystemExit(f"{what} not within {timeout} s")
        time.sleep(delay)
        delay = min(POLL_MAX, delay * 1.5)


def _status(volumes: httpx.Client, volume_id: str) -> str | None:
    found = volumes.get(f"/volumes/{volume_id}")
    return None if found.status_code == 404 else found.json()["volume"]["status"]


def _servers(compute: httpx.Client, count: int, flavor: str) -> list[str]:
    made = compute.post("/servers", json={"server": {
        "name": "vol-bench", "flavorRef": flavor, "imageRef": IMAGE_ID, "networks": "none",
        "min_count": count, "max_count": count}},
        headers={"X-OpenStack-Nova-API-Version": "2.37"})
    made.raise_for_status()

    def active() -> bool:
        listed = compute.get("/servers/detail", params={"name": "vol-bench"}).json()
        statuses = [s["status"] for s in listed["servers"]]
        if "ERROR" in statuses:
            raise SystemExit("a server went to ERROR")
        return statuses.count("ACTIVE") == count

    _until(active, "the servers ACTIVE", timeout=600)
    listed = compute.get("/servers", params={"name": "vol-bench"}).json()["servers"]
    return [s["id"] for s in listed]


def _booted(compute: httpx.Client, server: str) -> None:
    """A real guest takes a hot-plug (and lets go of a disk) once its kernel is up: a
    device_del sent to a booting guest is never answered."""
    def up() -> bool:
        console = compute.post(f"/servers/{server}/action",
                               json={"os-getConsoleOutput": {}}).json()["output"]
        return MARKER.decode() in console

    _until(up, f"{server}'s guest up", timeout=300)


def cycle(compute: httpx.Client, volumes: httpx.Client, server: str, lock: threading.Lock,
          times: dict[str, list[float]]) -> None:
    """One volume's life on `server`; the lock keeps one attach or detach per server at
    a time, as Nova's per-instance lock would serialise them anyway."""
    started = time.perf_counter()
    made = volumes.post("/volumes", json={"volume": {"size": 1}})
    made.raise_for_status()
    volume_id = made.json()["volume"]["id"]
    _until(lambda: _status(volumes, volume_id) == "available", "available")
    marks = [started, time.perf_counter()]
    with lock:
        compute.post(f"/servers/{server}/os-volume_attachments", json={
            "volumeAttachment": {"volumeId": volume_id}}).raise_for_status()
        _until(lambda: _status(volumes, volume_id) == "in-use", "in-use")
        marks.append(time.perf_counter())
        compute.delete(f"/servers/{server}/os-volume_attachments/{volume_id}"
                       ).raise_for_status()
        _until(lambda: _status(volumes, volume_id) == "available", "detached")
        marks.append(time.perf_counter())
    volumes.delete(f"/volumes/{volume_id}").raise_for_status()
    _until(lambda: _status(volumes, volume_id) is None, "deleted")
    marks.append(time.perf_counter())
    for step, (begin, end) in zip(STEPS, itertools.pairwise(marks), strict=True):
        times[step].append(end - begin)


def listing(base: str, count: int) -> dict:
    """`count` volumes made by 8 clients (beyond the default quota: noauth2's project
    is the admin's), then the median of five lists of all of them."""
    volumes = httpx.Client(base_url=f"{base}/volume/v3", timeout=120, headers=VOLUME_VERSION)
    volumes.put("/os-quota-sets/admin", json={"quota_set": {
        "volumes": -1, "gigabytes": -1}}).raise_for_status()
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda i: volumes.post("/volumes", json={"volume": {
            "size": 1, "name": f"listed-{i}"}}).raise_for_status(), range(count)))

    def all_available() -> bool:
        listed = volumes.get("/volumes/detail", params={"limit": count}).json()["volumes"]
        return sum(v["status"] == "available" for v in listed) == count

    _until(all_available, f"{count} volumes available")
    timings = []
    for _ in range(5):
        started = time.perf_counter()
        volumes.get("/volumes/detail", params={"limit": count}).raise_for_status()
        timings.append(time.perf_counter() - started)
    return {"listed": count, "list_ms_median": round(statistics.median(timings) * 1000, 1)}


def run(base: str, servers: list[str], cycles: int, concurrency: int,
        cpu_seconds: Callable[[], float]) -> dict:
    """`cpu_seconds`: the cloud's CPU-seconds so far; per cycle, it hardly moves with
    what else the machine runs, unlike cycles/s."""
    compute = httpx.Client(base_url=f"{base}/compute/v2.1", timeout=120,
                           headers={"X-OpenStack-Nova-API-Version": "2.79"})
    volumes = httpx.Client(base_url=f"{base}/volume/v3", timeout=120, headers=VOLUME_VERSION)
    locks = {server: threading.Lock() for server in servers}
    times: dict[str, list[float]] = {step: [] for step in STEPS}
    t0, cpu0 = time.perf_counter(), cpu_seconds()
    with concurrent.futures.ThreadPoolExecutor(concurrency) as pool:
        done = [pool.submit(cycle, compute, volumes, servers[i % len(servers)],
                            locks[servers[i % len(servers)]], times)
                for i in range(cycles)]
        for future in done:
            future.result()
    wall, cpu = time.perf_counter() - t0, cpu_seconds() - cpu0
    return {"cycles": cycles, "concurrency": concurrency, "servers": len(servers),
            "cycles_per_s": round(cycles / wall, 1),
            "cpu_ms_per_cycle": round(1000 * cpu / cycles, 1),
            **{f"{step}_p50_ms": round(statistics.median(times[step]) * 1000, 1)
               for step in STEPS},
            **{f"{step}_p95_ms": round(percentile(times[step], 95) * 1000, 1)
               for step in STEPS}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--driver", choices=["fake", "qemu"], default="fake")
    parser.add_argument("--servers", type=int, default=8)
    parser.add_argument("--cycles", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--listed", type=int, default=100,
                        help="volumes to list after the cycles (fake driver; [DEFAULT] "
                             "volume_backend_capacity_gb holds 100 of 1 GB)")
    args = parser.parse_args()
    goal = targets.load("volumes")
    with tempfile.TemporaryDirectory(prefix="novalite-volumes-") as state_dir:
        port = free_port()
        cloud = start_cloud(state_dir, port, 1 if args.driver == "qemu" else 2, args.driver)
        try:
            base = f"http://127.0.0.1:{port}"
            compute = httpx.Client(base_url=f"{base}/compute/v2.1", timeout=120)
            flavor = "42" if args.driver == "qemu" else "1"  # m1.nano for real guests
            servers = _servers(compute, args.servers, flavor)
            if args.driver == "qemu":
                for server in servers:
                    _booted(compute, server)
            found = run(base, servers, args.cycles, args.concurrency,
                        lambda: _cpu_seconds(cloud.pid))
            if args.driver == "fake" and args.listed:
                found.update(listing(base, args.listed))
            for server in servers:  # real guests outlive the all-in-one by design
                compute.delete(f"/servers/{server}")
            _until(lambda: not compute.get("/servers").json()["servers"], "servers gone")
        finally:
            cloud.terminate()
            cloud.wait(60)
    found["driver"] = args.driver
    if args.driver == "fake":
        found["target_cycles_per_s"] = goal["fake_cycles_per_s"]
        found["met"] = found["cycles_per_s"] >= goal["fake_cycles_per_s"]
    else:
        found["target_attach_p50_ms"] = goal["qemu_attach_p50_ms"]
        found["met"] = found["attach_p50_ms"] <= goal["qemu_attach_p50_ms"]
    print(f"{args.driver}: {found['cycles_per_s']} cycles/s "
          f"({found['cpu_ms_per_cycle']} CPU-ms each); p50 create "
          f"{found['create_p50_ms']} ms, attach {found['attach_p50_ms']} ms, detach "
          f"{found['detach_p50_ms']} ms, delete {found['delete_p50_ms']} ms")
    if "list_ms_median" in found:
        print(f"GET /volumes/detail with {found['listed']} volumes: median "
              f"{found['list_ms_median']} ms")
    print(json.dumps(found))


if __name__ == "__main__":
    main()
