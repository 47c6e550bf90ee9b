"""The distributed topology as separate processes over RabbitMQ and a real database."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import uuid
from pathlib import Path

import httpx
import pytest
import sqlalchemy as sa

from tests import services
from tests.ports import free_port
from tests.waiting import wait_for

BIN = Path(sys.executable).parent


@pytest.fixture
def rabbit_vhost():
    """A vhost of its own, so no queue or leftover message crosses between test runs."""
    services.require_rabbitmq()
    vhost = f"novalite-test-{uuid.uuid4().hex[:8]}"
    subprocess.run(["rabbitmqctl", "-q", "add_vhost", vhost], check=True, capture_output=True)
    subprocess.run(["rabbitmqctl", "-q", "set_permissions", "-p", vhost, "guest", ".*", ".*",
                    ".*"], check=True, capture_output=True)
    yield f"rabbit://guest:guest@127.0.0.1:5672/{vhost}"
    subprocess.run(["rabbitmqctl", "-q", "delete_vhost", vhost], capture_output=True)


@pytest.fixture(params=["postgresql", "mysql"])
def database_url(request):
    """A new, empty database on the real PostgreSQL or MariaDB."""
    with services.temporary_database(request.param) as url:
        yield url


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

    def log(self, name: str) -> str:
        return (self.workdir / f"{name}.log").read_text()

    def start(self, name: str, binary: str, *args: str) -> subprocess.Popen:
        out = open(self.workdir / f"{name}.log", "w")  # noqa: SIM115
        proc = subprocess.Popen([str(BIN / binary), "--config-file", str(self.config), *args],
                                stdout=out, stderr=subprocess.STDOUT, cwd=self.workdir)
        self.procs[name] = proc
        return proc

    def manage(self, *args: str) -> str:
        return subprocess.run([str(BIN / "novalite-manage"), "--config-file", str(self.config),
                               *args], check=True, capture_output=True, text=True).stdout

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

    def stop(self) -> dict[str, int]:
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        codes = {}
        for name, proc in self.procs.items():
            try:
                codes[name] = proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                codes[name] = proc.wait()
        return codes


@pytest.fixture
def topology(tmp_path, rabbit_vhost, database_url):
    topo = Topology(tmp_path, rabbit_vhost, database_url)
    yield topo
    topo.stop()
    if os.environ.get("NOVALITE_KEEP_LOGS"):
        print({name: topo.log(name)[-2000:] for name in topo.procs})
