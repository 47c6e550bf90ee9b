"""The fault matrix on a bigger storm: for each fault during a boot storm (default 500
servers, 16 clients) on the distributed cloud (processes over RabbitMQ and PostgreSQL),
what it left once every server settled: servers still building, ERROR without a fault,
202s not accounted for, memory placement holds beyond the live servers' flavors, the
placement audit, and the recovery time from the end of the fault (the restart of what
died) to the last server settled. Targets: all zeros, recovery within [faults]
recovery_s. The same harness as the fault-injection tests (tests.fault_storm),
(tests/integration/faults/), which runs the matrix on 100 servers in CI.

Every cloud reaches the broker through a TCP relay the benchmark owns, so that the
outage cuts only that relay: the shared RabbitMQ is never stopped."""

from __future__ import annotations

import argparse
import json
import signal
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the tests' harness

import targets  # noqa: E402

from tests import fault_storm, services  # noqa: E402
from tests.relay import Relay  # noqa: E402
from tests.topology import Topology  # noqa: E402

MakeFault = Callable[[Topology, Relay], fault_storm.Fault]
MATRIX: dict[str, MakeFault] = {
    "kill -9 conductor": lambda t, r: fault_storm.stop_and_restart(t, "conductor"),
    "kill -9 scheduler": lambda t, r: fault_storm.stop_and_restart(t, "scheduler"),
    "kill -9 compute": lambda t, r: fault_storm.stop_and_restart(t, "compute2"),
    "kill -9 api": lambda t, r: fault_storm.stop_and_restart(t, "api"),
    "kill -9 placement": lambda t, r: fault_storm.stop_and_restart(t, "placement"),
    "SIGTERM compute": lambda t, r: fault_storm.stop_and_restart(t, "compute2",
                                                                 signal.SIGTERM),
    "broker outage 15 s": lambda t, r: fault_storm.broker_outage(r),
}
# faults of a cloud whose placement is a novalite-placement process, not the API
PLACEMENT_APART = {"kill -9 placement"}
COUNTS = ("stuck", "error_without_fault", "unaccounted", "leaked_mb")


def run(make_fault: MakeFault, servers: int, backend: str, bound: float,
        watchdog: int, placement_apart: bool) -> dict:
    with services.temporary_vhost() as vhost_url, \
            services.temporary_database(backend) as database_url, \
            tempfile.TemporaryDirectory(prefix="novalite-faults-") as work:
        relay = Relay(5672)
        vhost = vhost_url.rsplit("/", 1)[1]
        topo = Topology(Path(work), f"rabbit://guest:guest@127.0.0.1:{relay.port}/{vhost}",
                        database_url)
        try:
            fault_storm.start(topo, watchdog, placement_apart)
            accepted, over = fault_storm.storm(topo, servers, make_fault(topo, relay))
            return fault_storm.outcome(topo, accepted, over, bound)
        finally:
            topo.stop(grace=5)
            relay.cut()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--servers", type=int, default=500)
    parser.add_argument("--database", choices=["postgresql", "mysql"], default="postgresql")
    parser.add_argument("--only", choices=sorted(MATRIX), action="append",
                        help="run only these faults (default: all)")
    parser.add_argument("--watchdog", type=int, default=60,
                        help="[conductor] build_watchdog_timeout, seconds: it must outlast "
                        "the queue wait of the storm's last build, or it buries builds "
                        "that were only waiting (15 s, the tests', does so at 500)")
    args = parser.parse_args()
    target = targets.load("faults")["recovery_s"]
    results = {}
    for name in args.only or MATRIX:
        results[name] = found = run(MATRIX[name], args.servers, args.database, 4 * target,
                                    args.watchdog, name in PLACEMENT_APART)
        met = (all(found[k] == 0 for k in COUNTS) and found["audit_clean"]
               and found["recovery_s"] is not None and found["recovery_s"] <= target)
        found["met"] = met
        print(f"{name:20} accepted {found['accepted']:4} active {found['active']:4} "
              f"error {found['error']:4} | stuck {found['stuck']} error-without-fault "
              f"{found['error_without_fault']} unaccounted {found['unaccounted']} leaked "
              f"{found['leaked_mb']} MB audit {'clean' if found['audit_clean'] else 'DIRTY'} "
              f"| recovery {found['recovery_s']} s (target {target}) "
              f"{'met' if met else 'NOT MET'}", flush=True)
    print(json.dumps({"servers": args.servers, "database": args.database,
                      "build_watchdog_timeout": args.watchdog,
                      "recovery_target_s": target, "faults": results}))


if __name__ == "__main__":
    main()
