"""Server moves on simulated hosts: cold migrations under 8 concurrent clients, and a host
drain by live migration (issue 18).

Why: a move crosses every service at once (API, conductor, scheduler, placement's
allocation swaps, two computes' RPC and the instance's state machine), so moves/s shows
what a boot storm does not: the cost of the move path, and whether concurrent moves step
on each other (a server left in ERROR, a claim lost, a server still on its old host).
The fake driver copies nothing ([fake_driver] live_migration_seconds is 0), so the
figures are novalite's own overhead, not a hypervisor's.

Each phase starts its own all-in-one (SQLite, fake driver, noauth2 with no token: the
admin, whom migrate and os-migrateLive need, and who sees `OS-EXT-SRV-ATTR:host`):

1. migrations: boots `--migrations` servers (flavor 1) on `--hosts` hosts, waits for all
   ACTIVE; then 8 clients take them one at a time: POST migrate, wait for VERIFY_RESIZE,
   POST confirmResize, wait for ACTIVE with no task. Prints migrations/s (servers / wall
   time from the first migrate to the last ACTIVE), p50/p95 per-migration latency
   (migrate to ACTIVE), and the all-in-one's CPU-seconds per migration (the steadier
   figure: on 2 cores the all-in-one's one process is what runs out).
2. drain: boots `--drain` servers forced onto compute1 (an admin's `:compute1` zone), so
   the drained host holds them all; picks the host holding the most (compute1), 8 clients
   live-migrate each of its servers (2.25, host chosen by the scheduler, block migration
   "auto"), each waited for until it is off that host, ACTIVE and with no task. Prints
   the drain time (first POST to the last server settled) and how many servers moved.
3. qemu: `--qemu-live` live migrations of one real 128 MB guest (m1.nano) between two
   QEMU computes on this machine (`--driver qemu --hosts 2`), back and forth: QEMU's
   own total time, the downtime: from the source's first pause (for the copy of a TCG
   guest's memory, else for the switch-over) to the guest running on the destination
   (the computes' log; QEMU's own query-migrate figure, which ends at the source, is
   printed too), and the API's time from the POST to the server idle on its new host.
   Targets (targets.toml): <= 5 s total, <= 300 ms downtime. The guest is moved once it
   has booted.

The clients do not poll a server each: one watcher lists the servers that changed
lately (see Watcher), so the measuring loads the cloud it measures little.

The last line is JSON.
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import datetime
import json
import os
import re
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable

import httpx

sys.path.insert(0, os.path.dirname(__file__))
import targets  # noqa: E402
from boot_storm import (  # noqa: E402
    IMAGE_ID,
    _cpu_seconds,
    free_port,
    percentile,
    start_cloud,
)

from novalite.virt.qemu.guest_image import MARKER  # noqa: E402

CLIENTS = 8
POLL_S = 0.05  # the watcher's pause between two lists
MOVE_TIMEOUT_S = 120.0
LIVE = {"X-OpenStack-Nova-API-Version": "2.25"}
TARGETS = targets.load("lifecycle")
NANO = "42"
QEMU_LINE = re.compile(r"Live migration of guest \S+ completed in (\d+) ms, downtime (\d+) ms")
# The guest's real pause: from the source's first stop (for the copy of a TCG guest's
# memory, else for the switch-over) to the destination's go, which QEMU's own downtime
# (source side) leaves out.
PAUSE_LINE = re.compile(r"^(\S+ \S+) .* Guest \S+ (paused for the copy of its memory|paused "
                        r"for the switch-over|runs on its new host)$", re.MULTILINE)
LANDED = "runs on its new host"


def _client(base: str) -> httpx.Client:
    """No X-Auth-Token: under noauth2 that is the admin user of the admin project."""
    return httpx.Client(base_url=f"{base}/compute/v2.1", timeout=120,
                        limits=httpx.Limits(max_connections=CLIENTS + 2))


def _boot(api: httpx.Client, count: int, name: str, zone: str | None = None) -> list[str]:
    """`count` servers in one multiple-create request, and their ids once all are
    ACTIVE (each has its own request spec, which its moves read)."""
    server = {"name": name, "flavorRef": "1", "imageRef": IMAGE_ID, "min_count": count,
              "return_reservation_id": True}
    if zone:
        server["availability_zone"] = zone
    response = api.post("/servers", json={"server": server})
    response.raise_for_status()
    reservation = response.json()["reservation_id"]
    ids = [s["id"] for s in api.get("/servers", params={
        "reservation_id": reservation, "limit": count}).json()["servers"]]
    deadline = time.monotonic() + 600
    while True:
        active = api.get("/servers", params={"status": "ACTIVE", "limit": count}).json()
        if len(active["servers"]) >= count:
            return ids
        errors = api.get("/servers", params={"status": "ERROR"}).json()["servers"]
        if errors:
            fault = _get(api, errors[0]["id"]).get("fault", {}).get("message")
            raise SystemExit(f"{len(errors)} of {count} servers went ERROR on boot: {fault}")
        if time.monotonic() > deadline:
            raise SystemExit(f"only {len(active['servers'])} of {count} servers ACTIVE")
        time.sleep(0.5)


def _get(api: httpx.Client, server_id: str) -> dict:
    response = api.get(f"/servers/{server_id}")
    response.raise_for_status()
    return response.json()["server"]


def _hosts(api: httpx.Client, count: int) -> dict[str, str]:
    listed = api.get("/servers/detail", params={"limit": count})
    listed.raise_for_status()
    return {s["id"]: s["OS-EXT-SRV-ATTR:host"] for s in listed.json()["servers"]}


class Watcher:
    """One poller for all the clients: GET /servers/detail?changes-since=<its last poll,
    less a second> lists only the servers that changed lately (those being moved), so
    watching costs the cloud one short list per POLL_S whatever the number of clients.
    (A GET /servers/{id} loop per client at 20/s took a third of the all-in-one's CPU per
    migration.)"""

    def __init__(self, api: httpx.Client, count: int) -> None:
        self.api, self.count = api, count
        self.seen: dict[str, tuple[float, dict]] = {}  # id -> (poll started, server)
        self.changed = threading.Condition()
        self.stop = threading.Event()
        self.polls = 0
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        since = datetime.datetime.now(datetime.UTC)
        while not self.stop.is_set():
            started, now = time.perf_counter(), datetime.datetime.now(datetime.UTC)
            listed = self.api.get("/servers/detail", params={
                "changes-since": (since - datetime.timedelta(seconds=1)).isoformat(),
                "limit": self.count})
            listed.raise_for_status()
            since = now
            with self.changed:
                self.polls += 1
                for server in listed.json()["servers"]:
                    self.seen[server["id"]] = (started, server)
                self.changed.notify_all()
            time.sleep(POLL_S)

    def wait(self, server_id: str, after: float, done: Callable[[dict], bool]) -> dict:
        """The server as first listed by a poll begun after `after` (perf_counter) in
        which it is `done` or ERROR; as last seen if that takes MOVE_TIMEOUT_S."""

        def settled() -> bool:
            started, server = self.seen.get(server_id, (0.0, None))
            return started > after and (done(server) or server["status"] == "ERROR")

        with self.changed:
            self.changed.wait_for(settled, timeout=MOVE_TIMEOUT_S)
            return self.seen.get(server_id, (0.0, {"status": "not listed", "id": server_id}))[1]

    def close(self) -> None:
        self.stop.set()
        self.thread.join(timeout=10)


def _idle(server: dict) -> bool:
    return server["status"] == "ACTIVE" and server["OS-EXT-STS:task_state"] is None


def _why(server: dict) -> str:
    fault = server.get("fault", {}).get("message", "")
    return (f"{server['status']}/{server.get('OS-EXT-STS:task_state')} on "
            f"{server.get('OS-EXT-SRV-ATTR:host')} {fault}").strip()


def _action(api: httpx.Client, server_id: str, body: dict,
            headers: dict | None = None) -> str | None:
    """None once accepted, else why not."""
    response = api.post(f"/servers/{server_id}/action", json=body, headers=headers)
    if response.status_code in (202, 204):
        return None
    return f"{next(iter(body))}: {response.status_code} {response.text[:200]}"


def _summary(latencies: list[float]) -> dict:
    if not latencies:
        return {"p50_s": None, "p95_s": None}
    return {"p50_s": round(statistics.median(latencies), 3),
            "p95_s": round(percentile(latencies, 95), 3)}


def migrations(base: str, count: int, hosts: int, cloud_pid: int) -> dict:
    api = _client(base)
    servers = _boot(api, count, "migrate")
    before = _hosts(api, count)
    latencies: list[float] = []
    to_verify: list[float] = []
    failures: list[str] = []
    finished: list[float] = []

    def migrate(server_id: str, watcher: Watcher) -> None:
        started = time.perf_counter()
        if error := _action(api, server_id, {"migrate": None}):
            failures.append(f"{server_id}: {error}")
            return
        server = watcher.wait(server_id, time.perf_counter(),  # or idle again: rolled back
                              lambda s: s["status"] == "VERIFY_RESIZE" or _idle(s))
        if server["status"] != "VERIFY_RESIZE":
            failures.append(f"{server_id}: migrate ended {_why(server)}")
            return
        verified = time.perf_counter()
        if error := _action(api, server_id, {"confirmResize": None}):
            failures.append(f"{server_id}: {error}")
            return
        server = watcher.wait(server_id, time.perf_counter(), _idle)
        if not _idle(server):
            failures.append(f"{server_id}: confirmResize ended {_why(server)}")
            return
        ended = time.perf_counter()
        latencies.append(ended - started)
        to_verify.append(verified - started)
        finished.append(ended)

    wall, cpu, watcher = _concurrently(api, count, cloud_pid, migrate, servers, finished)
    after = _hosts(api, count)
    moved = sum(1 for i in servers if after.get(i) and after[i] != before.get(i))
    return {
        "servers": count, "hosts": hosts, "clients": CLIENTS, "migrated": len(latencies),
        "moved_host": moved, "failures": len(failures), "failure_examples": failures[:5],
        "wall_s": round(wall, 2),
        "migrations_per_s": round(len(latencies) / wall, 2) if wall else 0.0,
        **_summary(latencies),
        "p50_to_verify_resize_s": _summary(to_verify)["p50_s"],
        "cpu_s_per_migration": round(cpu / count, 4), "watcher_polls": watcher.polls,
    }


def _first_host(base: str) -> tuple[str, int]:
    """The first simulated host (its node, and so its resource provider, has its name)
    and how many flavor-1 servers (512 MB, 1 vCPU, 1 GB) its inventory admits."""
    placement = httpx.Client(base_url=f"{base}/placement", timeout=30)
    provider = min(placement.get("/resource_providers").json()["resource_providers"],
                   key=lambda p: p["name"])
    inventories = placement.get(f"/resource_providers/{provider['uuid']}/inventories").json()[
        "inventories"]
    need = {"MEMORY_MB": 512, "VCPU": 1, "DISK_GB": 1}
    return provider["name"], min(
        int((inv["total"] - inv["reserved"]) * inv["allocation_ratio"]) // need[rc]
        for rc, inv in inventories.items() if rc in need)


def drain(base: str, count: int, hosts: int, cloud_pid: int) -> dict:
    api = _client(base)
    first, room = _first_host(base)
    if count > room:
        raise SystemExit(f"--drain {count}: {first} holds at most {room} flavor-1 servers")
    _boot(api, count, "drain", zone=f":{first}")
    placed = _hosts(api, count)
    per_host = collections.Counter(placed.values())
    source, _ = per_host.most_common(1)[0]
    servers = [i for i, h in placed.items() if h == source]
    latencies: list[float] = []
    failures: list[str] = []
    finished: list[float] = []

    def live_migrate(server_id: str, watcher: Watcher) -> None:
        started = time.perf_counter()
        body = {"os-migrateLive": {"host": None, "block_migration": "auto"}}
        if error := _action(api, server_id, body, headers=LIVE):
            failures.append(f"{server_id}: {error}")
            return
        server = watcher.wait(server_id, time.perf_counter(),
                              lambda s: s["OS-EXT-STS:task_state"] is None)
        if not _idle(server) or server["OS-EXT-SRV-ATTR:host"] == source:
            failures.append(f"{server_id}: live migration ended {_why(server)}")
            return
        ended = time.perf_counter()
        latencies.append(ended - started)
        finished.append(ended)

    wall, cpu, watcher = _concurrently(api, count, cloud_pid, live_migrate, servers,
                                       finished)
    after = _hosts(api, count)
    statuses = api.get("/servers/detail", params={"limit": count}).json()["servers"]
    left = sum(1 for i in servers if after.get(i) == source)
    return {
        "servers": count, "hosts": hosts, "clients": CLIENTS, "drained_host": source,
        "on_host_before": len(servers), "moved": len(servers) - left,
        "left_on_host": left, "failures": len(failures), "failure_examples": failures[:5],
        "all_active_idle": all(_idle(s) for s in statuses),
        "spread_after": dict(sorted(collections.Counter(after.values()).items())),
        "drain_s": round(wall, 2),
        "live_migrations_per_s": round(len(latencies) / wall, 2) if wall else 0.0,
        **_summary(latencies),
        "cpu_s_per_live_migration": round(cpu / max(len(servers), 1), 4),
        "watcher_polls": watcher.polls,
    }


def _concurrently(api: httpx.Client, count: int, cloud_pid: int,
                  move: Callable[[str, Watcher], None], servers: list[str],
                  finished: list[float]) -> tuple[float, float, Watcher]:
    """CLIENTS clients `move` the servers, watched by one Watcher: the wall time from
    the first move to the last one `finished`, the all-in-one's CPU-seconds meanwhile,
    and the (closed) watcher."""
    cpu0 = _cpu_seconds(cloud_pid)
    watcher = Watcher(api, count)
    t0 = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(CLIENTS) as pool:
        list(pool.map(lambda server_id: move(server_id, watcher), servers))
    wall = max(finished, default=t0) - t0
    watcher.close()
    return wall, _cpu_seconds(cloud_pid) - cpu0, watcher


def qemu_live(base: str, count: int, log: str) -> dict:
    """One real guest live-migrated `count` times between the two QEMU computes."""
    api = _client(base)
    server = {"name": "live", "flavorRef": NANO, "imageRef": IMAGE_ID}
    created = api.post("/servers", json={"server": server})
    created.raise_for_status()
    server_id = created.json()["server"]["id"]
    try:
        walls = _live_migrations(api, server_id, count)
    finally:  # a real guest outlives its cloud: delete it while the cloud still runs
        api.delete(f"/servers/{server_id}")
        _gone(api, server_id)
    with open(log) as lines:
        text = lines.read()
    qemu = [(int(m[1]), int(m[2])) for m in QEMU_LINE.finditer(text)]
    totals, downtimes = [t / 1000 for t, _ in qemu], [d for _, d in qemu]
    paused: list[int] = []
    stop: datetime.datetime | None = None
    for line in PAUSE_LINE.finditer(text):
        stamp = datetime.datetime.strptime(line[1], "%Y-%m-%d %H:%M:%S,%f")
        if line[2] == LANDED and stop is not None:
            paused.append(round((stamp - stop).total_seconds() * 1000))
            stop = None
        elif line[2] != LANDED and stop is None:
            stop = stamp
    result = {
        "migrations": count, "qemu_total_s_max": max(totals), "qemu_total_s_p50":
        statistics.median(totals), "qemu_downtime_ms_max": max(downtimes),
        "qemu_downtime_ms_p50": statistics.median(downtimes),
        "downtime_ms_max": max(paused), "downtime_ms_p50": statistics.median(paused),
        "api_wall_s_p50": round(statistics.median(walls), 3),
        "api_wall_s_max": round(max(walls), 3),
        "target_total_s": TARGETS["qemu_live_total_s"],
        "target_downtime_ms": TARGETS["qemu_live_downtime_ms"],
    }
    result["met"] = (result["qemu_total_s_max"] <= result["target_total_s"]
                     and result["downtime_ms_max"] <= result["target_downtime_ms"])
    return result


def _booted(api: httpx.Client, server_id: str) -> None:
    """Until the guest's init has printed its marker: a TCG guest moved while its kernel
    still patches its own code can crash on arrival (seen here at 0.27 s of uptime)."""
    deadline = time.monotonic() + MOVE_TIMEOUT_S
    while time.monotonic() < deadline:
        console = api.post(f"/servers/{server_id}/action",
                           json={"os-getConsoleOutput": {}}).json().get("output", "")
        if MARKER in console:
            return
        time.sleep(0.5)
    raise SystemExit(f"server {server_id}'s guest did not boot within {MOVE_TIMEOUT_S:g} s")


def _live_migrations(api: httpx.Client, server_id: str, count: int) -> list[float]:
    """Once the guest has booted, `count` live migrations, each to the other host: the
    API's time of each, from the POST to the server idle on its new host."""
    _until_idle(api, server_id, lambda s: s["status"] == "ACTIVE")
    _booted(api, server_id)
    walls: list[float] = []
    for _ in range(count):
        before = _get(api, server_id)["OS-EXT-SRV-ATTR:host"]
        started = time.perf_counter()
        body = {"os-migrateLive": {"host": None, "block_migration": "auto"}}
        if error := _action(api, server_id, body, headers=LIVE):
            raise SystemExit(f"live migration refused: {error}")
        moved = _until_idle(api, server_id,
                            lambda s, left=before: s["OS-EXT-SRV-ATTR:host"] != left)
        if moved["status"] != "ACTIVE" or moved["OS-EXT-STS:power_state"] != 1:
            raise SystemExit(f"live migration ended {_why(moved)}")
        walls.append(time.perf_counter() - started)
    return walls


def _gone(api: httpx.Client, server_id: str) -> None:
    deadline = time.monotonic() + MOVE_TIMEOUT_S
    while api.get(f"/servers/{server_id}").status_code != 404:
        if time.monotonic() > deadline:
            raise SystemExit(f"server {server_id} was not deleted within {MOVE_TIMEOUT_S:g} s")
        time.sleep(POLL_S)


def _log_of(pid: int) -> str:
    """The all-in-one's log: where its output goes (start_cloud's file)."""
    return os.readlink(f"/proc/{pid}/fd/1")


def _until_idle(api: httpx.Client, server_id: str, also: Callable[[dict], bool]) -> dict:
    deadline = time.monotonic() + MOVE_TIMEOUT_S
    while time.monotonic() < deadline:
        server = _get(api, server_id)
        if server["OS-EXT-STS:task_state"] is None and (
                server["status"] == "ERROR" or also(server)):
            return server
        time.sleep(POLL_S)
    raise SystemExit(f"server {server_id} did not settle within {MOVE_TIMEOUT_S:g} s")


def _phase(hosts: int, run: Callable[[str, int], dict], driver: str = "fake") -> dict:
    with tempfile.TemporaryDirectory(prefix="novalite-bench-") as state:
        port = free_port()
        proc = start_cloud(state, port, hosts, driver)
        try:
            return run(f"http://127.0.0.1:{port}", proc.pid)
        finally:
            proc.terminate()
            proc.wait(timeout=60)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--migrations", type=int, default=200,
                        help="servers cold-migrated once each (0: skip)")
    parser.add_argument("--drain", type=int, default=100,
                        help="servers on the drained host (0: skip)")
    parser.add_argument("--qemu-live", type=int, default=5,
                        help="live migrations of one real guest (0: skip)")
    parser.add_argument("--hosts", type=int, default=4)
    args = parser.parse_args()
    if args.hosts < 2:
        parser.error("a move needs at least 2 hosts")
    result: dict = {}
    if args.migrations:
        cold = result["cold_migration"] = _phase(
            args.hosts, lambda base, pid: migrations(base, args.migrations, args.hosts, pid))
        print(f"cold migrations: {cold['migrated']}/{cold['servers']} migrated and "
              f"confirmed ({cold['moved_host']} on a new host, {cold['failures']} failed) "
              f"on {args.hosts} hosts with {CLIENTS} clients in {cold['wall_s']} s -> "
              f"{cold['migrations_per_s']} migrations/s; per migration p50 "
              f"{cold['p50_s']} s, p95 {cold['p95_s']} s (to VERIFY_RESIZE p50 "
              f"{cold['p50_to_verify_resize_s']} s); all-in-one CPU-s per migration "
              f"{cold['cpu_s_per_migration']}", flush=True)
        for example in cold["failure_examples"]:
            print(f"  failed: {example}")
    if args.drain:
        dr = result["drain"] = _phase(
            args.hosts, lambda base, pid: drain(base, args.drain, args.hosts, pid))
        print(f"host drain: {dr['moved']}/{dr['on_host_before']} servers live-migrated off "
              f"{dr['drained_host']} in {dr['drain_s']} s ({dr['live_migrations_per_s']}/s "
              f"with {CLIENTS} clients; per migration p50 {dr['p50_s']} s, p95 "
              f"{dr['p95_s']} s); {dr['left_on_host']} left, {dr['failures']} failed, "
              f"all ACTIVE and idle: {dr['all_active_idle']}; now {dr['spread_after']}",
              flush=True)
        for example in dr["failure_examples"]:
            print(f"  failed: {example}")
    if args.qemu_live:
        live = result["qemu_live_migration"] = _phase(2, lambda base, pid: qemu_live(
            base, args.qemu_live, _log_of(pid)), driver="qemu")
        print(f"qemu live migration of a 128 MB guest, {live['migrations']} times between "
              f"2 QEMU computes: QEMU total p50 {live['qemu_total_s_p50']} s, max "
              f"{live['qemu_total_s_max']} s (target {live['target_total_s']:g} s); "
              f"guest paused (switch-over to running on the new host) p50 "
              f"{live['downtime_ms_p50']} ms, max {live['downtime_ms_max']} ms (target "
              f"{live['target_downtime_ms']:g} ms; QEMU's own downtime p50 "
              f"{live['qemu_downtime_ms_p50']} ms): "
              f"{'met' if live['met'] else 'MISSED'}; API POST to idle on the new host "
              f"p50 {live['api_wall_s_p50']} s", flush=True)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
