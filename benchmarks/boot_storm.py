"""Boot storm: start the all-in-one as its own process, boot N servers through the HTTP API
concurrently, then delete them all.

Fake driver (default): prints servers/s from the first POST to the last ACTIVE, p50/p95
boot latency (POST to first seen ACTIVE), and delete throughput (first DELETE to the last
one gone).

`--probe-placement` (fake driver, either topology): benchmarks/placement.py's measures
against the cloud's own placement, first alone once it serves, then again while the
storm runs (started once a tenth of the servers are posted): Nova's query (limit=1000)
timed 30 times, and 1000 claims from 4 client processes (given back after each run).
Also the scheduler's own placement phase during the storm, from its log. The targets
(placement's, at 10,000 providers) hold for `--hosts 10000`; fewer hosts mean fewer
providers.

`--distributed`: the same storm on separate processes over RabbitMQ and PostgreSQL (or
`--database mysql`): novalite-api, `--conductors` conductors, `--schedulers` schedulers
and `--hosts` novalite-compute processes, with the integration tests' harness
(tests/topology.py), each in a vhost and a database of its own. The CPU per boot is
also printed for each process, and for the database server and the broker (all their
processes on the machine), which count in its total. `--placement-process`: placement
served by a novalite-placement process of its own rather than by novalite-api.

`--driver qemu`: real guests (m1.nano, the default novalite-tiny guest). Prints, per guest,
seconds from its POST to the guest's own "up" line on its serial console, the CPU-seconds
its QEMU used to get there and its RSS once all are up; then the total wall time against
the 45 s target for 10 guests. With `--network`, each guest has a port on `private` and
user data (from the metadata service) that pings every other guest until it answers:
a guest is done when its console says it reached all its peers, and the target is 60 s
for 10 guests with their DHCP addresses and mutual pings.

The last line is JSON.
"""

from __future__ import annotations

import argparse
import base64
import concurrent.futures
import contextlib
import datetime
import functools
import json
import multiprocessing
import multiprocessing.pool
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import placement
import targets
from scheduler_log import phases as scheduler_phases

from novalite.datapath import names, teardown

IMAGE_ID = "a3c0d5e6-7d1f-4b3a-9b8e-6e0c1f0a1a01"  # seeded by the all-in-one


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _bench_config(state_dir: str) -> str:
    """A storm boots far beyond a project's default quota, and 10 real 1-vCPU guests on
    this 2-core host beyond Nova's default 4.0 CPU allocation ratio (16.0, Nova's old
    default, admits them); it measures booting, not token checks (noauth2: no token is
    the admin)."""
    path = os.path.join(state_dir, "bench.conf")
    with open(path, "w") as conf:
        conf.write("[DEFAULT]\ncpu_allocation_ratio = 16.0\n"
                   "[quota]\ninstances = -1\ncores = -1\nram = -1\n"
                   "[api]\nauth_strategy = noauth2\n")
    return path


BANNER = b"novalite all-in-one is running"


def start_cloud(state_dir: str, port: int, hosts: int, driver: str = "fake",
                timeout: float = 180.0) -> subprocess.Popen:
    """The all-in-one, once its banner says every compute started (each reported to
    placement before it did) and placement lists them all. Waiting on the log, not by
    listing providers, keeps the wait from loading a start of thousands of hosts."""
    log_path = os.path.join(state_dir, "all-in-one.log")
    log = open(log_path, "w")  # noqa: SIM115
    proc = subprocess.Popen(
        [sys.executable, "-m", "novalite.cmd.novalite", "all-in-one", "--state-dir", state_dir,
         "--port", str(port), "--hosts", str(hosts), "--listen", "127.0.0.1",
         "--driver", driver, "--config-file", _bench_config(state_dir)],
        stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + timeout  # the qemu driver builds its guest image first
    if _banner_seen(log_path, proc, deadline):
        while time.monotonic() < deadline:
            try:
                found = httpx.get(f"http://127.0.0.1:{port}/placement/resource_providers",
                                  timeout=60)
                if found.status_code == 200 and len(found.json()["resource_providers"]) >= hosts:
                    return proc
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
    proc.kill()
    raise SystemExit(f"the all-in-one did not start; see {log.name}")


def _banner_seen(log_path: str, proc: subprocess.Popen, deadline: float) -> bool:
    with open(log_path, "rb") as log:
        while time.monotonic() < deadline and proc.poll() is None:
            line = log.readline()
            if BANNER in line:
                return True
            if not line.endswith(b"\n"):  # at the end of what was written so far
                log.seek(-len(line), os.SEEK_CUR)
                time.sleep(0.05)
    return False


def percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(pct / 100 * (len(ordered) - 1))))]


# How far back each poll looks before the previous one began: more than the clocks' and
# the stored timestamps' slack.
WATCH_OVERLAP = datetime.timedelta(seconds=2)
# Between polls: two lists every ~0.1 s is about what 32 `openstack server create --wait`
# clients ask (a GET every 2 s each), and a tenth of a second is fine against the 2 s p95
# target. Polling every 20 ms, as before, cost about 30 ms of the all-in-one's CPU a boot
# in a 600-server storm (110 ms against 78 ms at 0.2 s): it measured the watcher.
WATCH_EVERY_S = 0.1


def watch(api: httpx.Client, count: int, seen: dict, stop: threading.Event) -> None:
    """Record when each server is first listed ACTIVE or ERROR. The short index with a
    status filter, and Nova's `changes-since` (only what changed since just before the
    previous poll, not every server already seen), keep the measuring from loading the
    cloud it measures."""
    since = datetime.datetime.now(datetime.UTC) - WATCH_OVERLAP
    while not stop.is_set() and len(seen) < count:
        began = datetime.datetime.now(datetime.UTC)
        for status in ("ACTIVE", "ERROR"):
            servers = api.get("/servers", params={
                "status": status, "changes-since": since.isoformat()}).json()["servers"]
            now = time.perf_counter()
            for server in servers:
                seen.setdefault(server["id"], (now, status))
        since = began - WATCH_OVERLAP
        time.sleep(WATCH_EVERY_S)


def storm(base: str, count: int, concurrency: int, flavor: str,
          meters: dict[str, Callable[[], float]],
          alongside: Callable[[], dict] | None = None) -> dict:
    """The CPU-seconds per boot and per delete of the cloud's processes (`meters`: each
    one's CPU-seconds so far, by name) are measured too: unlike servers/s they hardly move
    with what else the machine runs. `alongside`, if given, runs on a thread once a tenth
    of the servers are posted; its result is returned under "alongside", and whether it
    ended before the last server was ACTIVE (so all of it ran under the storm's load)."""
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
        if len(posted) >= count // 10:
            begun.set()

    begun = threading.Event()
    side: dict = {}

    def run_alongside() -> None:
        if alongside is not None and begun.wait(timeout=600):
            side.update(alongside())
            side["ended"] = time.perf_counter()

    beside = threading.Thread(target=run_alongside)
    stop = threading.Event()
    watcher = threading.Thread(target=watch, args=(api, count, finished, stop))
    cpu0 = {name: meter() for name, meter in meters.items()}
    t0 = time.perf_counter()
    watcher.start()
    beside.start()
    with concurrent.futures.ThreadPoolExecutor(concurrency) as pool:
        list(pool.map(boot, range(count)))
    watcher.join(timeout=600)
    begun.set()
    beside.join()
    active = {i: t for i, (t, status) in finished.items() if status == "ACTIVE"}
    errors = len(finished) - len(active)
    boot_wall = max(active.values(), default=t0) - t0
    latencies = [active[i] - posted[i] for i in posted if i in active]
    cpu1 = {name: meter() for name, meter in meters.items()}

    t1 = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(concurrency) as pool:
        list(pool.map(lambda i: api.delete(f"/servers/{i}").raise_for_status(), posted))
    while api.get("/servers", params={"limit": 1}).json()["servers"]:  # one is enough
        time.sleep(0.02)
    delete_wall = time.perf_counter() - t1
    cpu2 = {name: meter() for name, meter in meters.items()}
    stop.set()
    ended = side.pop("ended", None)
    return {
        **({"alongside": side, "alongside_inside": ended is not None and ended <= t0 + boot_wall}
           if alongside is not None else {}),
        "servers": count, "active": len(latencies), "errors": errors,
        "servers_per_s": round(len(latencies) / boot_wall, 1) if boot_wall else 0.0,
        "boot_wall_s": round(boot_wall, 2),
        "p50_boot_s": round(statistics.median(latencies), 3) if latencies else None,
        "p95_boot_s": round(percentile(latencies, 95), 3) if latencies else None,
        "deletes_per_s": round(count / delete_wall, 1),
        "cpu_s_per_boot": round(sum(cpu1[n] - cpu0[n] for n in meters) / count, 4),
        "cpu_s_per_delete": round(sum(cpu2[n] - cpu1[n] for n in meters) / count, 4),
        "cpu_ms_per_boot_by_process": {n: round(1000 * (cpu1[n] - cpu0[n]) / count, 1)
                                       for n in meters},
        "concurrency": concurrency,
    }


MARKER = b"NOVALITE-GUEST-UP"
PEERS_MARKER = b"PEERS-REACHED"
TICKS = os.sysconf("SC_CLK_TCK")
QEMU_TARGET_S = targets.load("boot_storm")["qemu_10_guests_s"]
QEMU_NETWORK_TARGET_S = targets.load("boot_storm")["qemu_10_guests_network_s"]
# Pings each peer (a second at a time, for up to a minute) until it answers, then says
# how many did; the addresses are the ports', known before any guest boots.
PEERS_SCRIPT = """#!/bin/sh
reached=0
for peer in {peers}; do
  tries=0
  until ping -c 1 -W 1 $peer > /dev/null 2>&1 || [ $tries -ge 60 ]; do
    tries=$((tries + 1))
  done
  [ $tries -lt 60 ] && reached=$((reached + 1))
done
echo "PEERS-REACHED $reached/{count}"
"""


def _ports(base: str, count: int) -> list[dict]:
    """`count` ports on `private` for the guests to boot on."""
    with httpx.Client(base_url=f"{base}/networking/v2.0", timeout=60) as net:
        private, = net.get("/networks", params={"name": "private"}).json()["networks"]
        return [net.post("/ports", json={"port": {"network_id": private["id"]}}).json()["port"]
                for _ in range(count)]


def _peers_data(ports: list[dict], index: int) -> str:
    peers = [p["fixed_ips"][0]["ip_address"] for i, p in enumerate(ports) if i != index]
    script = PEERS_SCRIPT.format(peers=" ".join(peers), count=len(peers))
    return base64.b64encode(script.encode()).decode()


def _qemu_pid(instance_dir: str) -> int | None:
    try:
        with open(os.path.join(instance_dir, "qemu.pid")) as pidfile:
            return int(pidfile.read())
    except (OSError, ValueError):
        return None


def _stat(pid: int | str) -> tuple[str, list[str]]:
    """The command name in /proc/<pid>/stat and the fields after it (it may hold spaces
    and parentheses)."""
    with open(f"/proc/{pid}/stat") as stat:
        name, _, rest = stat.read().partition("(")[2].rpartition(")")
    return name, rest.split()


def _cpu_seconds(pid: int) -> float:
    fields = _stat(pid)[1]
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime + stime


# The shared servers a distributed cloud uses, by the command name of their processes.
SERVERS = {"postgresql": {"postgresql": "postgres", "rabbitmq": "beam.smp"},
           "mysql": {"mariadb": "mariadbd", "rabbitmq": "beam.smp"}}


def _named_cpu_seconds(command: str) -> float:
    """The CPU-seconds of every process named `command`, with those of their children
    that ended (PostgreSQL's backends of closed connections)."""
    total = 0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            name, fields = _stat(pid)
        except OSError:
            continue  # ended meanwhile
        if name == command:
            total += sum(int(f) for f in fields[11:15])  # utime stime cutime cstime
    return total / TICKS


def _rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def _done(console: bytes, network: bool, count: int) -> bool:
    if not network:
        return MARKER in console
    return f"{PEERS_MARKER.decode()} {count - 1}/{count - 1}".encode() in console


def qemu_storm(base: str, state_dir: str, count: int, flavor: str, timeout: float,
               network: bool = False) -> dict:
    """All guests posted at once; each one's time to its console marker (with a
    network: to having reached every peer)."""
    api = httpx.Client(base_url=f"{base}/compute/v2.1", timeout=120,
                       limits=httpx.Limits(max_connections=count + 2))
    instances = os.path.join(state_dir, "instances")
    posted: dict[str, float] = {}
    ports = _ports(base, count) if network else []

    def boot(i: int) -> None:
        server = {"name": f"real-{i}", "flavorRef": flavor, "imageRef": IMAGE_ID}
        if network:
            server.update(networks=[{"port": ports[i]["id"]}],
                          user_data=_peers_data(ports, i))
        started = time.perf_counter()
        response = api.post("/servers", json={"server": server})
        response.raise_for_status()
        posted[response.json()["server"]["id"]] = started

    t0 = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(count) as pool:
        list(pool.map(boot, range(count)))
    up: dict[str, tuple[float, float]] = {}  # id -> (seconds to marker, CPU-seconds)
    deadline = time.monotonic() + timeout
    failed: set[str] = set()
    while len(up) + len(failed) < count and time.monotonic() < deadline:
        failed = {s["id"] for s in api.get("/servers", params={"status": "ERROR"}).json()[
            "servers"]}
        for server_id in set(posted) - set(up) - failed:
            directory = os.path.join(instances, server_id)
            try:
                with open(os.path.join(directory, "console.log"), "rb") as log:
                    seen = _done(log.read(), network, count)
            except OSError:
                continue
            pid = _qemu_pid(directory)
            if seen and pid:
                up[server_id] = (time.perf_counter() - posted[server_id], _cpu_seconds(pid))
                print(f"  guest {len(up):2d}/{count} up {up[server_id][0]:6.1f} s after its "
                      f"POST, {up[server_id][1]:.1f} CPU-s", flush=True)
        time.sleep(0.1)
    wall = time.perf_counter() - t0
    rss = [_rss_mb(pid) for sid in up if (pid := _qemu_pid(os.path.join(instances, sid)))]
    for server_id in posted:
        api.delete(f"/servers/{server_id}")
    while api.get("/servers").json()["servers"]:
        time.sleep(0.2)
    seconds = sorted(t for t, _ in up.values())
    target = QEMU_NETWORK_TARGET_S if network else QEMU_TARGET_S
    return {
        "driver": "qemu", "network": network, "servers": count, "up": len(up),
        "errors": len(failed),
        "total_wall_s": round(wall, 1),
        "boot_to_marker_s": [round(t, 1) for t in seconds],
        "p50_boot_s": round(statistics.median(seconds), 1) if seconds else None,
        "max_boot_s": round(seconds[-1], 1) if seconds else None,
        "cpu_s_per_boot": round(statistics.mean(c for _, c in up.values()), 2) if up else None,
        "rss_mb_per_guest": round(statistics.mean(rss), 1) if rss else None,
        "target_s": target,
        "met": len(up) == count and wall <= target,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--driver", choices=["fake", "qemu"], default="fake")
    parser.add_argument("--servers", type=int, default=None,
                        help="default: 200 (fake), 10 (qemu)")
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--hosts", type=int, default=4)
    parser.add_argument("--flavor", default=None, help="default: 1 (fake), 42 m1.nano (qemu)")
    parser.add_argument("--timeout", type=float, default=300.0,
                        help="seconds to wait for every guest's marker (qemu) or for the "
                        "all-in-one to serve (fake: --hosts 10000 takes minutes)")
    parser.add_argument("--network", action="store_true",
                        help="qemu: guests on private, pinging each other")
    parser.add_argument("--distributed", action="store_true",
                        help="fake: the services as processes over RabbitMQ and a database")
    parser.add_argument("--database", choices=["postgresql", "mysql"], default="postgresql",
                        help="--distributed: the database server")
    parser.add_argument("--conductors", type=int, default=2, help="--distributed")
    parser.add_argument("--schedulers", type=int, default=2, help="--distributed")
    parser.add_argument("--probe-placement", action="store_true",
                        help="fake: time placement alone, then under the storm")
    parser.add_argument("--placement-process", action="store_true",
                        help="--distributed: placement served by novalite-placement, not "
                        "by novalite-api")
    args = parser.parse_args()
    if args.driver == "qemu":
        run_qemu(args.servers or 10, args.flavor or "42", args.timeout, args.network)
        return
    args.servers, args.flavor = args.servers or 200, args.flavor or "1"
    with contextlib.ExitStack() as stack:
        pool = None
        if args.probe_placement:  # spawned: clients apart from the cloud, as schedulers are
            pool = stack.enter_context(multiprocessing.get_context("spawn").Pool(
                PROBE_WORKERS))
        if args.distributed:
            result = run_distributed(args, pool)
            where = (f"{args.hosts} compute processes, {args.conductors} conductors, "
                     f"{args.schedulers} schedulers"
                     + (", novalite-placement" if args.placement_process else ""))
        else:
            result, where = run_all_in_one(args, pool), f"{args.hosts} hosts"
    _report(result, where)


def run_all_in_one(args: argparse.Namespace, pool: multiprocessing.pool.Pool | None) -> dict:
    with tempfile.TemporaryDirectory(prefix="novalite-bench-") as state:
        port = free_port()
        proc = start_cloud(state, port, args.hosts, timeout=args.timeout)
        try:
            return probed_storm(f"http://127.0.0.1:{port}", args,
                                {"all-in-one": functools.partial(_cpu_seconds, proc.pid)},
                                pool, [os.path.join(state, "all-in-one.log")])
        finally:
            proc.terminate()
            proc.wait(timeout=60)


def probed_storm(base: str, args: argparse.Namespace, meters: dict[str, Callable[[], float]],
                 pool: multiprocessing.pool.Pool | None, logs: list[str],
                 placement_url: str | None = None) -> dict:
    """The storm; with a `pool` of probing clients, placement (at `placement_url`, else
    the API's) is also measured alone before it and again under it, and the schedulers'
    `logs` give their placement phase."""
    if pool is None:
        return storm(base, args.servers, args.concurrency, args.flavor, meters)
    url = placement_url or f"{base}/placement"
    probe = functools.partial(probe_placement, pool, url)
    alone = _release(url, probe())
    result = storm(base, args.servers, args.concurrency, args.flavor, meters,
                   alongside=probe)  # its claims are given back once the storm is over
    result["placement"] = _placement_report(
        alone, _release(url, result.pop("alongside")), result.pop("alongside_inside"),
        [request for log in logs for request in scheduler_phases(log)])
    return result


PROBE_RUNS, PROBE_CLAIMS, PROBE_WORKERS = 30, 1000, 4  # as benchmarks/placement.py's
PROBE_CLAIMS_EACH = 10  # Nova's query asks for 10 GB of disk: 100 GB a provider
PLACEMENT_TARGETS = targets.load("placement")


def probe_placement(pool: multiprocessing.pool.Pool, url: str) -> dict:
    """benchmarks/placement.py's measures against the cloud's own placement: Nova's query
    (a) timed by a client process, then claims/s from several at once, each claim of one
    of its candidates in turn, at most PROBE_CLAIMS_EACH on each (so that a few hosts'
    capacity holds them beside the storm's servers). The consumers claimed for are
    returned too, for _release."""
    times, candidates = pool.apply(placement.time_query, (url, placement.QUERIES["a"],
                                                          PROBE_RUNS))
    count = min(PROBE_CLAIMS, PROBE_CLAIMS_EACH * len(candidates))
    rate, consumers = placement.claims(pool, url, candidates, count, PROBE_WORKERS)
    return {"candidates": len(candidates),
            "query_median_ms": round(statistics.median(times) * 1000, 2),
            "query_p95_ms": round(placement.p95(times) * 1000, 2),
            "claims": count, "claims_per_s": round(rate, 1), "consumers": consumers}


def _release(url: str, probed: dict) -> dict:
    """The probe's figures, once its claims are given back."""
    with httpx.Client(base_url=url, headers=placement.HEADERS, timeout=120) as client:
        for consumer in probed.pop("consumers"):
            client.delete(f"/allocations/{consumer}").raise_for_status()
    return probed


def _placement_report(alone: dict, under: dict, inside: bool,
                      scheduled: list[dict[str, float]]) -> dict:
    """The probe's figures alone and under the storm against placement's targets, and the
    scheduler's own placement phase during the storm (its query and nothing else)."""
    own = [request["placement"] for request in scheduled if "placement" in request]
    report = {
        "alone": alone, "under_storm": under, "probe_inside_storm": inside,
        "scheduler_placement_ms": {
            "median": round(statistics.median(own), 2) if own else None,
            "p95": round(percentile(own, 95), 2) if own else None},
    }
    report["met_under_storm"] = {
        "query": under["query_median_ms"] <= PLACEMENT_TARGETS["median_ms"]["a"],
        "claims": under["claims_per_s"] >= PLACEMENT_TARGETS["claims_per_s"]}
    return report


def _report(result: dict, where: str) -> None:
    print(f"boot storm: {result['active']}/{result['servers']} ACTIVE on {where} "
          f"in {result['boot_wall_s']} s -> {result['servers_per_s']} servers/s; "
          f"boot latency p50 {result['p50_boot_s']} s, p95 {result['p95_boot_s']} s; "
          f"deletes {result['deletes_per_s']}/s; CPU-s per boot "
          f"{result['cpu_s_per_boot']}, per delete {result['cpu_s_per_delete']}")
    print("CPU ms per boot: " + ", ".join(
        f"{name} {ms}" for name, ms in result["cpu_ms_per_boot_by_process"].items()))
    print(f"baseline for the 100 servers/s goal: {result['servers_per_s'] / 100:.2f}x")
    if "placement" in result:
        probe = result["placement"]
        for when in ("alone", "under_storm"):
            found = probe[when]
            print(f"placement {when.replace('_', ' ')}: query a median "
                  f"{found['query_median_ms']} ms, p95 {found['query_p95_ms']} ms "
                  f"({found['candidates']} candidates); {found['claims']} claims at "
                  f"{found['claims_per_s']}/s")
        print(f"the scheduler's placement phase during the storm: median "
              f"{probe['scheduler_placement_ms']['median']} ms, p95 "
              f"{probe['scheduler_placement_ms']['p95']} ms; probe inside the storm: "
              f"{probe['probe_inside_storm']}; targets under the storm "
              f"({PLACEMENT_TARGETS['median_ms']['a']} ms, "
              f"{PLACEMENT_TARGETS['claims_per_s']} claims/s): {probe['met_under_storm']}")
    print(json.dumps(result))


def run_distributed(args: argparse.Namespace, pool: multiprocessing.pool.Pool | None) -> dict:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the tests' harness
    from tests import services
    from tests.topology import Topology

    with services.temporary_vhost() as transport_url, \
            services.temporary_database(args.database) as database_url, \
            tempfile.TemporaryDirectory(prefix="novalite-bench-") as work:
        topo = Topology(Path(work), transport_url, database_url)
        with topo.config.open("a") as config:  # the harness logs at DEBUG: not here
            config.write("[DEFAULT]\ndebug = false\n")
            config.write(Path(_bench_config(work)).read_text())
        try:
            topo.manage("db", "sync")
            topo.manage("db", "seed")
            placement_url = (str(topo.separate_placement().base_url).rstrip("/")
                             if args.placement_process else None)
            topo.start("api", "novalite-api")
            topo.wait(lambda: topo.api.get("/flavors").status_code == 200, timeout=120,
                      what="the API answering")
            names = [f"conductor{i + 1}" for i in range(args.conductors)] + \
                [f"scheduler{i + 1}" for i in range(args.schedulers)]
            for name in names:  # each its own service record, as on its own machine
                own = Path(work) / f"{name}.conf"
                own.write_text(f"[DEFAULT]\nhost = {name}\n")
                topo.start(name, f"novalite-{name.rstrip('0123456789')}", "--config-file",
                           str(own))
            hosts = [f"compute{i + 1}" for i in range(args.hosts)]
            for host in hosts:
                topo.start(host, "novalite-compute", "--host", host)
            topo.wait(lambda: len(topo.query("SELECT id FROM inventories")) == 3 * len(hosts)
                      and set(names) <= {h for (h,) in topo.query("SELECT host FROM services")},
                      timeout=180, what="every service up, every compute in placement")
            meters = {name: functools.partial(_cpu_seconds, proc.pid)
                      for name, proc in topo.procs.items()}
            meters.update({f"{server} server": functools.partial(_named_cpu_seconds, command)
                           for server, command in SERVERS[args.database].items()})
            return probed_storm(f"http://127.0.0.1:{topo.port}", args, meters, pool,
                                [str(Path(work) / f"{name}.log") for name in names
                                 if name.startswith("scheduler")], placement_url)
        finally:
            topo.stop(grace=10)


def run_qemu(count: int, flavor: str, timeout: float, network: bool) -> None:
    with tempfile.TemporaryDirectory(prefix="novalite-bench-") as state:
        port = free_port()
        proc = start_cloud(state, port, 1, driver="qemu")
        try:
            result = qemu_storm(f"http://127.0.0.1:{port}", state, count, flavor, timeout,
                                network)
        finally:
            proc.terminate()
            proc.wait(timeout=120)
            teardown.remove_all(names.derived_prefix(state))  # its cloud is gone
    what = "with DHCP addresses, all peers pinged" if network else "up"
    print(f"qemu boot storm: {result['up']}/{count} guests {what} in "
          f"{result['total_wall_s']} s (target {result['target_s']:g} s: "
          f"{'met' if result['met'] else 'MISSED'}); "
          f"boot to marker p50 {result['p50_boot_s']} s, max {result['max_boot_s']} s; "
          f"{result['cpu_s_per_boot']} CPU-s per boot; {result['rss_mb_per_guest']} MB RSS "
          "per guest")
    if result["up"]:
        print(f"ratio to target: {result['target_s'] / result['total_wall_s']:.2f}x")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
