"""NBD exports with a real qemu-nbd: started, found again by a new Exports (a restarted
service), started again on the same port, and stopped; and when an export's process is
gone."""

import socket
import subprocess
import sys
import time

import pytest

from novalite.volume import errors, exports
from novalite.volume.exports import Exports


@pytest.fixture
def volume_file(conf, tmp_path):
    path = tmp_path / "volume.qcow2"
    subprocess.run(["qemu-img", "create", "-q", "-f", "qcow2", str(path), "1G"], check=True)
    return str(path)


@pytest.fixture
def host_exports(conf):
    made = Exports("host1")
    yield made
    for attachment_id in made.known():
        made.stop(attachment_id)


def _serves(host: str, port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex((host, port)) == 0


def test_an_export_outlives_its_manager_and_comes_back_on_its_port(host_exports, volume_file):
    export = host_exports.start("a1", volume_file, "vol1", read_only=False)
    assert (export.host, export.name) == ("127.0.0.1", "vol1")
    assert host_exports.running("a1") and _serves(export.host, export.port)
    info = subprocess.run(["qemu-img", "info", f"nbd://{export.host}:{export.port}/vol1"],
                          capture_output=True, text=True, check=True).stdout
    assert "file format: raw" in info  # the guest's view, not the qcow2

    restarted = Exports("host1")  # what a new volume service finds
    assert restarted.known() == ["a1"] and restarted.running("a1")
    restarted.stop("a1")
    assert not restarted.running("a1") and restarted.known() == []
    assert not _serves(export.host, export.port)
    again = restarted.start("a1", volume_file, "vol1", read_only=False, port=export.port)
    assert again.port == export.port and _serves(export.host, export.port)


def test_a_port_in_use_is_an_export_error_and_stop_is_idempotent(host_exports, volume_file):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(errors.ExportError) as refused:
            host_exports.start("a2", volume_file, "vol2", read_only=True, port=port)
    assert f"qemu-nbd could not serve {volume_file} on 127.0.0.1:{port}" in str(
        refused.value)
    host_exports.stop("a2")
    host_exports.stop("never-started")
    assert host_exports.known() == []


def _state(pid: int) -> str:
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().rsplit(")", 1)[1].split()[0]


def test_a_process_whose_first_thread_ended_is_gone_only_with_its_last():
    """As qemu-nbd's first thread ends before the thread that holds its socket."""
    child = subprocess.Popen(
        [sys.executable, "-c", "import ctypes, sys, threading\n"
         "threading.Thread(target=sys.stdin.read).start()\n"
         "ctypes.CDLL(None).pthread_exit(None)\n"], stdin=subprocess.PIPE)
    deadline = time.monotonic() + 30
    while _state(child.pid) != "Z" and time.monotonic() < deadline:
        time.sleep(0.01)
    assert _state(child.pid) == "Z"  # the first thread, while the reader still runs
    assert exports._alive(child.pid) and not exports._wait_gone(child.pid, 0.05)
    child.stdin.close()
    assert exports._wait_gone(child.pid, 30) and not exports._alive(child.pid)
    child.wait()
    assert exports._wait_gone(child.pid, 0)  # reaped
