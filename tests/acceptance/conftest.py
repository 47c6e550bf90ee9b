"""One all-in-one for the acceptance tests (the CLI and SDK scenarios share it), started
as a user starts it: a process, a port, a state directory and the clouds.yaml it writes."""

from __future__ import annotations

import contextlib
import dataclasses
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from novalite.datapath import names, teardown
from tests.ports import free_port
from tests.waiting import wait_for

BANNER = "novalite all-in-one is running"


@dataclasses.dataclass
class Cloud:
    base: str
    state_dir: Path
    pid: int

    @property
    def clouds_yaml(self) -> Path:
        return self.state_dir / "clouds.yaml"


def _wait_running(proc: subprocess.Popen, log: Path) -> None:
    """Its output goes to a file, not a pipe nobody drains once the cloud is up."""
    def up() -> bool:
        assert proc.poll() is None, f"the all-in-one exited:\n{log.read_text()}"
        return BANNER in log.read_text()

    try:  # 120 s: the qemu driver builds its guest first
        wait_for(up, timeout=120, interval=0.1, what="the all-in-one's banner")
    except AssertionError as exc:
        raise AssertionError(f"{exc}:\n{log.read_text()}") from None


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
        yield Cloud(f"http://127.0.0.1:{port}", state_dir, proc.pid)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
        # real guests' networks outlive the all-in-one by design; this cloud is gone
        teardown.remove_all(names.derived_prefix(str(state_dir)))
    assert proc.returncode == 0, log.read_text()


@pytest.fixture(scope="package")
def cloud(tmp_path_factory) -> Iterator[Cloud]:
    with all_in_one(tmp_path_factory.mktemp("cloud"), "--hosts", "2") as started:
        yield started
