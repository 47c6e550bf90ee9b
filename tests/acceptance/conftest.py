"""One all-in-one for the acceptance tests (the CLI and SDK scenarios share it), started
as a user starts it: a process, a port, a state directory and the clouds.yaml it writes."""

from __future__ import annotations

import contextlib
import dataclasses
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.ports import free_port

BANNER = "novalite all-in-one is running"


@dataclasses.dataclass
class Cloud:
    base: str
    state_dir: Path

    @property
    def clouds_yaml(self) -> Path:
        return self.state_dir / "clouds.yaml"


def _wait_running(proc: subprocess.Popen, log: Path) -> None:
    """Its output goes to a file, not a pipe nobody drains once the cloud is up."""
    deadline = time.monotonic() + 120  # the qemu driver builds its guest first
    while BANNER not in log.read_text():
        assert proc.poll() is None, f"the all-in-one exited:\n{log.read_text()}"
        assert time.monotonic() < deadline, f"no banner in 120 s:\n{log.read_text()}"
        time.sleep(0.1)


@contextlib.contextmanager
def all_in_one(state_dir: Path, *args: str) -> Iterator[Cloud]:
    """`novalite all-in-one` as a process until the block ends; it must stop cleanly."""
    log = state_dir / "all-in-one.log"
    port = free_port()
    with log.open("w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "novalite.cmd.novalite", "all-in-one", "--state-dir",
             str(state_dir), "--port", str(port), "--listen", "127.0.0.1", *args],
            stdout=out, stderr=subprocess.STDOUT)
    try:
        _wait_running(proc, log)
        yield Cloud(f"http://127.0.0.1:{port}", state_dir)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
    assert proc.returncode == 0, log.read_text()


@pytest.fixture(scope="package")
def cloud(tmp_path_factory) -> Iterator[Cloud]:
    with all_in_one(tmp_path_factory.mktemp("cloud"), "--hosts", "2") as started:
        yield started
