"""RPC throughput per transport: an echo endpoint behind RPCServer, driven by RPCClient.

Measures calls/s from one thread, calls/s from --threads threads, and casts/s (from the
first cast sent to the last one processed by the server). Client and server share one
process, as in the all-in-one. Prints a table; the last line is JSON.

    python benchmarks/rpc.py [--transports inprocess rabbit] [--calls N] [--threads N]
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import targets

from novalite import context
from novalite.rpc import RPCClient, RPCServer, Target, get_transport
from novalite.rpc.transport import reset_transports

URLS = {"inprocess": "inprocess://", "rabbit": "rabbit://guest:guest@127.0.0.1:5672/"}
TARGETS = targets.load("rpc")


class Echo:
    target = Target()

    def __init__(self) -> None:
        self.casts = 0
        self.expected = 0
        self.all_cast = threading.Event()
        self._lock = threading.Lock()

    def echo(self, ctx, value):
        return value

    def count(self, ctx):
        with self._lock:
            self.casts += 1
            if self.casts >= self.expected:
                self.all_cast.set()


def _rate(count: int, started: float) -> float:
    return round(count / (time.perf_counter() - started), 1)


def measure(url: str, calls: int, threads: int) -> dict[str, float]:
    transport = get_transport(url)
    topic = f"bench-{uuid.uuid4().hex[:8]}"
    endpoint = Echo()
    server = RPCServer(transport, Target(topic=topic, server="bench"), [endpoint])
    server.start()
    client = RPCClient(transport, Target(topic=topic), timeout=30)
    ctx = context.get_admin_context()
    try:
        for i in range(min(200, calls)):  # warm up connections, caches and the pool
            client.call(ctx, "echo", value=i)

        started = time.perf_counter()
        for i in range(calls):
            client.call(ctx, "echo", value=i)
        single = _rate(calls, started)

        per_thread = max(1, calls // threads)

        def caller(_: int) -> None:
            for i in range(per_thread):
                client.call(ctx, "echo", value=i)

        with ThreadPoolExecutor(threads) as pool:
            list(pool.map(caller, range(threads)))  # warm up every thread's path
            started = time.perf_counter()
            list(pool.map(caller, range(threads)))
            threaded = _rate(per_thread * threads, started)

        endpoint.expected = calls
        started = time.perf_counter()
        for _ in range(calls):
            client.cast(ctx, "count")
        if not endpoint.all_cast.wait(120):
            raise SystemExit(f"only {endpoint.casts} of {calls} casts arrived on {url}")
        casts = _rate(calls, started)
    finally:
        server.stop()
        server.wait(10)
        if url.startswith("rabbit"):
            _delete_queues(url, [topic, f"{topic}.bench"])
        reset_transports()
    return {"calls_per_s": single, "calls_per_s_threads": threaded, "casts_per_s": casts}


def _delete_queues(url: str, queues: list[str]) -> None:
    """The durable queues outlive the run; remove them so benchmarks leave nothing behind."""
    from novalite.rpc.amqp_connection import close_quietly, connect

    conn = connect(url, threading.Event(), deadline=time.monotonic() + 5)
    try:
        channel = conn.channel()
        for queue in queues:
            channel.queue_delete(queue)
    finally:
        close_quietly(conn, graceful=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--transports", nargs="+", choices=sorted(URLS),
                        default=["inprocess", "rabbit"])
    parser.add_argument("--calls", type=int, default=5000, help="calls (and casts) per run")
    parser.add_argument("--threads", type=int, default=8, help="caller threads")
    args = parser.parse_args()

    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    logging.disable(logging.INFO)  # one log line per RPC would measure the logging
    results: dict[str, dict | None] = {}
    for name in args.transports:
        try:
            results[name] = measure(URLS[name], args.calls, args.threads)
        except Exception as exc:  # noqa: BLE001 (report it, measure the others)
            print(f"{name}: {type(exc).__name__}: {exc}", file=sys.stderr)
            results[name] = None

    print(f"{'transport':<10} {'calls/s':>10} {f'calls/s x{args.threads}':>13} "
          f"{'casts/s':>10}")
    for name, figures in results.items():
        if figures is None:
            print(f"{name:<10} {'failed':>10}")
            continue
        print(f"{name:<10} {figures['calls_per_s']:>10,.0f} "
              f"{figures['calls_per_s_threads']:>13,.0f} {figures['casts_per_s']:>10,.0f}")
    print(json.dumps({**results, "targets": TARGETS}))


if __name__ == "__main__":
    main()
