"""The distributed topology as separate processes over RabbitMQ and a real database:
novalite-api, -conductor, -scheduler and computes (and novalite-placement, if asked),
each with its log, for the integration tests and the benchmarks."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import httpx
import sqlalchemy as sa

from tests.ports import free_port
from tests.waiting import wait_for

BIN = Path(sys.executable).parent


class Topology:
    """novalite-api, -conductor, -scheduler and N x novalite-compute as processes."""

    def __init__(self, workdir: Path, transport_url: str, database_url: str) -> None:
        self.workdir = workdir
        self.database_url = database_url
        self.port = free_port()
        self.config = workdir / "novalite.conf"
        # debug: the tests follow a request id through each service's per-RPC log lines
        self.config.write_text(
            f"[DEFAULT]\ntransport_url = {transport_url}\nreport_interval = 2\ndebug = true\n"
            f"osapi_compute_listen = 127.0.0.1\nosapi_compute_listen_port = {self.port}\n"
            f"state_path = {workdir}\n"
            f"[database]\nconnection = {database_url}\n"
            f"[placement]\nendpoint_override = http://127.0.0.1:{self.port}/placement\n"
            f"[glance]\nendpoint_override = http://127.0.0.1:{self.port}/image\n"
            f"[neutron]\nendpoint_override = http://127.0.0.1:{self.port}/networking\n"
            f"[nova]\nendpoint_override = http://127.0.0.1:{self.port}/compute/v2.1\n"
            "[api]\nauth_strategy = noauth2\n")
        self.procs: dict[str, subprocess.Popen] = {}
        self.api = httpx.Client(base_url=f"http://127.0.0.1:{self.port}/compute/v2.1",
                                timeout=30)

    def separate_placement(self) -> httpx.Client:
        """novalite-placement on a port of its own, every service pointed at it (started
        before them): a client of its placement API, as an admin."""
        port = free_port()
        config = self.config.read_text().replace(f"{self.port}/placement", f"{port}/placement")
        self.config.write_text(config + f"[DEFAULT]\nplacement_listen = 127.0.0.1\n"
                               f"placement_listen_port = {port}\n")
        self.start("placement", "novalite-placement")
        client = httpx.Client(base_url=f"http://127.0.0.1:{port}/placement", timeout=30,
                              headers={"OpenStack-API-Version": "placement 1.39"})
        self.wait(lambda: client.get("/").status_code == 200, what="the placement API")
        return client

    def log(self, name: str) -> str:
        return (self.workdir / f"{name}.log").read_text()

    def start(self, name: str, binary: str, *args: str) -> subprocess.Popen:
        out = open(self.workdir / f"{name}.log", "w")  # noqa: SIM115
        proc = subprocess.Popen([str(BIN / binary), "--config-file", str(self.config), *args],
                                stdout=out, stderr=subprocess.STDOUT, cwd=self.workdir)
        self.procs[name] = proc
        return proc

    def manage(self, *args: str, ok: tuple[int, ...] = (0,)) -> str:
        """novalite-manage's output; an exit code not in `ok` raises with its output."""
        done = subprocess.run([str(BIN / "novalite-manage"), "--config-file",
                               str(self.config), *args], capture_output=True, text=True)
        assert done.returncode in ok, f"novalite-manage {' '.join(args)} exited " \
            f"{done.returncode}:\n{done.stdout}{done.stderr}"
        return done.stdout

    def query(self, sql: str) -> list:
        engine = sa.create_engine(self.database_url)
        try:
            with engine.connect() as conn:
                return list(conn.exec_driver_sql(sql))
        finally:
            engine.dispose()

    def wait(self, predicate, timeout: float = 60, what: str = "condition"):
        """Until `predicate` holds; a service that exits meanwhile fails at once."""
        def check():
            for name, proc in self.procs.items():
                if proc.poll() is not None:
                    raise AssertionError(f"{name} exited ({proc.returncode}):\n{self.log(name)}")
            return predicate()

        return wait_for(check, timeout=timeout, what=what, interval=0.1,
                        ignore=(httpx.HTTPError, sa.exc.OperationalError))

    def stop(self, grace: float = 30) -> dict[str, int]:
        """SIGTERM, the computes first and the API last, each kind while the kinds it
        calls still answer: a compute stopping lets its builds finish, which call the
        conductor and placement (stopped along with it, they would hold its stop until
        the call's timeout). A service still running `grace` seconds later is killed
        (after a fault, a call to a service that died may hold a stop that long)."""
        codes = {}
        for kind in STOP_ORDER:
            group = {n: p for n, p in self.procs.items() if _kind(n) == kind}
            for proc in group.values():
                if proc.poll() is None:
                    proc.send_signal(signal.SIGTERM)
            for name, proc in group.items():
                try:
                    codes[name] = proc.wait(timeout=grace)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    codes[name] = proc.wait()
        return codes


STOP_ORDER = ("compute", "conductor", "scheduler", "other", "api")


def _kind(name: str) -> str:
    found = next((k for k in STOP_ORDER if name.startswith(k)), "other")
    return found
