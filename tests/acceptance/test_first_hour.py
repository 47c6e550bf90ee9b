"""A new user's first hour, from a fresh clone in a temporary directory, following the
README literally: `make run`, `make client`, the README's third line, then what goes wrong
for new users (a second cloud on the same state directory, a port in use, a bad config
file, a crash, a restart, fewer hosts, an API novalite lacks) — each answered in one line.

The clone is of the committed HEAD. Its venv is new (the Makefile's own bootstrap: venv,
pip installs uv, uv installs novalite); uv's and pip's caches are the machine's, warm after
the project's own `make test` install, so the install costs seconds, not minutes. Times
are measured by benchmarks/first_run.py, not here.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.ports import free_port

REPO = Path(__file__).resolve().parents[2]
BANNER_END = "Stop with Ctrl-C."


class User:
    """A shell in the clone: commands as the user types them, output as they see it."""

    def __init__(self, clone: Path) -> None:
        self.clone = clone
        self.env = {k: v for k, v in os.environ.items()
                    if k not in ("VIRTUAL_ENV", "OS_CLOUD", "OS_CLIENT_CONFIG_FILE")}
        self.env["PATH"] = os.pathsep.join(p for p in self.env["PATH"].split(os.pathsep)
                                           if not p.startswith(str(REPO)))
        self.started: list[subprocess.Popen] = []  # each `make run`, for the clean-up

    def run(self, command: str, timeout: float = 300) -> subprocess.CompletedProcess:
        return subprocess.run(["bash", "-c", command], cwd=self.clone, env=self.env,
                              capture_output=True, text=True, timeout=timeout)

    def novalite(self, *args: str) -> subprocess.CompletedProcess:
        return self.run(" ".join([".venv/bin/novalite", *args]))


class Running:
    """`make run ARGS=...` in the foreground of its own terminal (process group)."""

    def __init__(self, user: User, args: str) -> None:
        self.out = user.clone / f"run-{time.monotonic_ns()}.out"
        self.err = self.out.with_suffix(".err")
        with self.out.open("w") as out, self.err.open("w") as err:
            self.proc = subprocess.Popen(["make", "run", f"ARGS={args}"], cwd=user.clone,
                                         env=user.env, stdout=out, stderr=err,
                                         start_new_session=True)
        user.started.append(self.proc)
        deadline = time.monotonic() + 240
        while BANNER_END not in self.out.read_text():
            assert self.proc.poll() is None, self.output()
            assert time.monotonic() < deadline, self.output()
            time.sleep(0.1)

    def output(self) -> str:
        return self.out.read_text() + self.err.read_text()

    def banner(self) -> str:
        text = self.out.read_text()
        return text[text.index("novalite all-in-one is running"):]

    def stop(self, sig: int = signal.SIGINT) -> None:
        os.killpg(self.proc.pid, sig)  # what Ctrl-C does to the terminal's foreground
        self.proc.wait(timeout=60)


@pytest.fixture(scope="module")
def user() -> Iterator[User]:
    # not under pytest's basetemp: other pytest sessions of the same user prune it
    with tempfile.TemporaryDirectory(prefix="novalite-first-hour-") as workdir:
        clone = Path(workdir) / "novalite"
        subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True)
        user = User(clone)
        try:
            yield user
        finally:  # a failed step must not leave its cloud running on the machine
            for proc in user.started:  # the group outlives make if the cloud does
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=60)


def _one_line_exit_2(result: subprocess.CompletedProcess, *says: str) -> None:
    assert result.returncode == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    for words in says:
        assert words in result.stderr


@pytest.mark.timeout(1200)  # installs and five starts; minutes on a loaded machine
def test_first_hour(user: User) -> None:
    port = free_port()
    args = f"--port {port} --listen 127.0.0.1 --hosts 2"
    base = f"http://127.0.0.1:{port}"

    # 1. make run installs only the runtime, then the banner is the last thing printed
    cloud = Running(user, args)
    out = cloud.out.read_text()
    assert "Installing novalite and its runtime dependencies" in out
    assert out.rstrip().endswith(BANNER_END)
    pip_list = user.run(".venv/bin/python -m pip list --format json 2>/dev/null || "
                        "VIRTUAL_ENV=.venv .venv/bin/uv pip list --format json")
    installed = {p["name"].lower() for p in json.loads(pip_list.stdout)}
    assert "novalite" in installed and not installed & {"pytest", "tempest", "ruff"}
    assert "RPC call" not in cloud.err.read_text()  # per-RPC lines are DEBUG

    # ... `make client` and the README's third line boot a server with the openstack CLI
    assert user.run("make client").returncode == 0
    third_line = (user.clone / "README.md").read_text().splitlines()[2].strip("`")
    booted = user.run(third_line + " -f json")
    assert booted.returncode == 0, booted.stderr
    server = json.loads(booted.stdout)
    assert server["status"] == "ACTIVE"

    cli = "export PATH=$PWD/.venv/bin:$PATH OS_CLOUD=novalite " \
          "OS_CLIENT_CONFIG_FILE=$PWD/.novalite/clouds.yaml; openstack "

    # 2. the state directory has one owner; --status repeats the banner; a port in use
    status = user.novalite("all-in-one", "--status")
    assert status.returncode == 0 and status.stdout.strip() == cloud.banner().strip()
    pid = (user.clone / ".novalite" / "novalite.lock").read_text().split()[0]
    _one_line_exit_2(user.novalite("all-in-one", "--port", str(free_port())),
                     f"in use by another novalite all-in-one (pid {pid})")
    _one_line_exit_2(user.novalite("all-in-one", "--state-dir", "other", "--port",
                                   str(port)), f"cannot listen on 0.0.0.0:{port}")

    # 5. what novalite lacks says so
    token = user.run(cli + "token issue -f value -c id").stdout.strip()
    api = httpx.Client(base_url=f"{base}/compute/v2.1", headers={"X-Auth-Token": token})
    assert api.get("/os-baremetal-nodes").status_code == 501
    assert "Not implemented by novalite: the baremetal nodes (proxy) API" \
        in cloud.err.read_text()
    refused = api.get("/servers", params={"no_such_filter": "x"})
    assert refused.status_code == 400 and "no_such_filter" in refused.text

    # 4. Ctrl-C, start again: the simulated server is as it was; console and stop work
    cloud.stop()
    assert "Stopping novalite-compute" in cloud.err.read_text()
    assert "Traceback" not in cloud.output()
    assert not (user.clone / ".novalite" / "novalite.lock").exists()
    cloud = Running(user, args)
    console = user.run(cli + "console log show vm1")
    assert console.returncode == 0 and "novalite-fake login" in console.stdout
    stopped = user.run(cli + "server stop vm1")
    assert stopped.returncode == 0, stopped.stderr
    _wait(lambda: user.run(cli + "server show vm1 -f value -c status").stdout.strip()
          == "SHUTOFF")

    # 2. a crash (kill -9) leaves the lock file; the next start takes it over
    cloud.stop(signal.SIGKILL)
    assert (user.clone / ".novalite" / "novalite.lock").exists()

    # 3. a start running fewer hosts disables the others: no build goes to a dead host
    cloud = Running(user, f"--port {port} --listen 127.0.0.1 --hosts 1")
    services = user.run(".venv/bin/novalite-manage service list")
    assert services.returncode == 0
    compute2 = next(line for line in services.stdout.splitlines() if "compute2" in line)
    assert "novalite-compute" in compute2 and "disabled" in compute2
    admin = cli.replace("OS_CLOUD=novalite ", "OS_CLOUD=novalite-admin ")
    # the admin project has no network of its own (as on devstack): boot it without one
    again = user.run(admin + "server create --image novalite-tiny --flavor m1.tiny "
                     "--nic none --wait vm2 -f value -c OS-EXT-SRV-ATTR:host")
    assert again.stdout.strip() == "compute1", again.stderr

    # 6. logs and versions; --debug shows what INFO leaves out
    assert user.novalite("--version").stdout.strip().startswith("novalite ")
    cloud.stop()

    # 7. no tracebacks at the command line
    _one_line_exit_2(user.novalite("all-in-one", "--config-file", "missing.conf"),
                     "missing.conf")
    _one_line_exit_2(user.novalite("all-in-one", "--state-dir", "/proc/novalite"),
                     "--state-dir")
    _one_line_exit_2(user.run("cd .. && novalite/.venv/bin/novalite-manage placement audit"),
                     "--config-file")
    manage_help = user.run(".venv/bin/novalite-manage --help").stdout
    for command in ("cell_v2", "db", "placement", "service"):
        assert command in manage_help
    cells = user.run(".venv/bin/novalite-manage cell_v2 discover_hosts --verbose")
    assert cells.returncode == 0 and "single cell" in cells.stdout


def _wait(predicate, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline
        time.sleep(0.2)
