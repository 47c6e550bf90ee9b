"""A big simulated cloud: start `novalite all-in-one --hosts N` as its own process and
report how long it takes to serve, how much memory it holds, and where a boot's
scheduling time goes there.

Serving means the API answers, every host's resource provider is in placement and every
compute node is listed by os-hypervisors (what the scheduler's refresh reads). Then
--boots servers are booted one after another (each waited ACTIVE), and the scheduler's
own per-request line ("Scheduled ... refresh, placement, filters, weighers, claim") is
read from the all-in-one's log: the first boot pays the full host-state refresh, the
others an incremental one. Prints seconds and CPU-seconds to serving, RSS (the process
and its children), and per phase the first boot's and the median of the others'
milliseconds, against the targets in targets.toml. `--idle S`: then the CPU the cloud
uses, as a share of one core, over S seconds in which nobody asks it anything (its
periodic tasks: 60 s covers each host's once). The last line is JSON.

    python benchmarks/big_cloud.py --hosts 1000 [--boots 5] [--idle 60] [--timeout 900]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time

import httpx
import targets
from boot_storm import IMAGE_ID, _cpu_seconds, _rss_mb, free_port, start_cloud
from scheduler_log import phases as scheduler_phases

TARGETS = targets.load("big_cloud")


def _family_rss_mb(pid: int) -> float:
    """The process's RSS plus its children's (helpers the all-in-one may start)."""
    total = _rss_mb(pid)
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/children") as children:
            total += sum(_family_rss_mb(int(c)) for c in children.read().split())
    return total


def _boot(api: httpx.Client, name: str, timeout: float) -> str:
    server = api.post("/servers", json={"server": {
        "name": name, "flavorRef": "1", "imageRef": IMAGE_ID}}).raise_for_status()
    server_id = server.json()["server"]["id"]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status = api.get(f"/servers/{server_id}").json()["server"]["status"]
        if status in ("ACTIVE", "ERROR"):
            return status
        time.sleep(0.05)
    return "TIMEOUT"


def _summary(requests: list[dict[str, float]]) -> dict[str, dict[str, float]]:
    """The first request's phases and the median of the later ones', with totals."""
    def total(request: dict[str, float]) -> dict[str, float]:
        return {**request, "total": round(sum(request.values()), 2)}

    out = {"first": total(requests[0])} if requests else {}
    later = [total(r) for r in requests[1:]]
    if later:
        out["later_median"] = {name: round(statistics.median(r.get(name, 0.0) for r in later), 2)
                               for name in later[0]}
    return out


def run(hosts: int, boots: int, idle_s: float, timeout: float) -> dict:
    with tempfile.TemporaryDirectory(prefix="novalite-big-") as state:
        port = free_port()
        started = time.perf_counter()
        proc = start_cloud(state, port, hosts, timeout=timeout)
        try:
            base = f"http://127.0.0.1:{port}/compute/v2.1"
            api = httpx.Client(base_url=base, timeout=120)
            while len(api.get("/os-hypervisors").json()["hypervisors"]) < hosts:
                time.sleep(1.0)
            serving_s = time.perf_counter() - started
            cpu_s, rss_mb = _cpu_seconds(proc.pid), _family_rss_mb(proc.pid)
            print(f"{hosts} hosts serving after {serving_s:.1f} s ({cpu_s:.1f} CPU-s), "
                  f"RSS {rss_mb:.0f} MB", flush=True)
            statuses = [_boot(api, f"big-{i}", timeout=120) for i in range(boots)]
            phases = _summary(scheduler_phases(os.path.join(state, "all-in-one.log")))
            idle = _idle_cpu_percent(proc.pid, idle_s) if idle_s else None
        finally:
            proc.terminate()
            proc.wait(timeout=120)
    return {"hosts": hosts, "serving_s": round(serving_s, 1), "cpu_s_to_serving": round(cpu_s, 1),
            "rss_mb": round(rss_mb), "boots": statuses, "scheduler_ms": phases,
            "idle_cpu_percent": idle}


def _idle_cpu_percent(pid: int, seconds: float) -> float:
    began, cpu = time.perf_counter(), _cpu_seconds(pid)
    time.sleep(seconds)
    used = _cpu_seconds(pid) - cpu
    percent = round(100 * used / (time.perf_counter() - began), 1)
    print(f"idle for {seconds:.0f} s: {percent} % of a core", flush=True)
    return percent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hosts", type=int, default=1000)
    parser.add_argument("--boots", type=int, default=5)
    parser.add_argument("--idle", type=float, default=0.0,
                        help="seconds to measure the idle cloud's CPU over (0: not at all)")
    parser.add_argument("--timeout", type=float, default=900.0,
                        help="seconds to wait for the cloud to serve")
    args = parser.parse_args()
    result = run(args.hosts, args.boots, args.idle, args.timeout)
    for which, phases in result["scheduler_ms"].items():
        print(f"  scheduler, {which.replace('_', ' ')} boot: " +
              ", ".join(f"{name} {ms} ms" for name, ms in phases.items()), flush=True)
    later = result["scheduler_ms"].get("later_median", {}).get("total")
    result["met"] = {
        "serving_s": result["serving_s"] <= TARGETS["serving_s"],
        "rss_mb": result["rss_mb"] <= TARGETS["rss_mb"],
        "scheduler_ms": later is not None and later <= TARGETS["scheduler_ms"],
    }
    print(f"targets ({TARGETS['serving_s']} s, {TARGETS['rss_mb']} MB, "
          f"{TARGETS['scheduler_ms']} ms a boot): {result['met']}", flush=True)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
