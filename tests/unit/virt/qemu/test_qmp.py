import json
import os
import socket
import threading

import pytest

from novalite.virt.qemu.qmp import QMPClient, QMPError

GREETING = {"QMP": {"version": {"qemu": {"major": 7, "minor": 2, "micro": 0}},
                    "capabilities": []}}


class FakeMonitor:
    """A QMP server on a unix socket answering from a table: command -> reply."""

    def __init__(self, path: str, replies: dict, events_before: dict | None = None,
                 stale: list[dict] | None = None) -> None:
        self.path, self.replies, self.events_before = path, replies, events_before or {}
        self.stale = stale or []  # what was queued for a previous client
        self.received: list[dict] = []
        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.server.bind(path)
        self.server.listen(1)
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        conn, _ = self.server.accept()
        with conn:
            for event in self.stale:
                conn.sendall(json.dumps(event).encode() + b"\r\n")
            conn.sendall(json.dumps(GREETING).encode() + b"\r\n")
            buffer = b""
            while True:
                data = conn.recv(4096)
                if not data:
                    return
                buffer += data
                while b"\n" in buffer:
                    line, buffer = buffer.split(b"\n", 1)
                    message = json.loads(line)
                    self.received.append(message)
                    command = message["execute"]
                    for event in self.events_before.get(command, []):
                        conn.sendall(json.dumps(event).encode() + b"\r\n")
                    reply = self.replies.get(command, {"return": {}})
                    if reply is None:
                        return  # hang up, as QEMU does on quit
                    conn.sendall(json.dumps(reply).encode() + b"\r\n")

    def close(self) -> None:
        self.server.close()


@pytest.fixture
def sock_path(tmp_path):
    path = str(tmp_path / "qmp.sock")
    yield path
    if os.path.exists(path):
        os.unlink(path)


def test_handshake_then_command_returns_its_value(sock_path):
    monitor = FakeMonitor(sock_path, {"query-status": {"return": {"status": "running"}}})
    with QMPClient(sock_path) as client:
        assert client.execute("query-status") == {"status": "running"}
    assert [m["execute"] for m in monitor.received] == ["qmp_capabilities", "query-status"]
    monitor.close()


def test_an_event_queued_before_the_greeting_is_kept_not_an_error(sock_path):
    event = {"event": "JOB_STATUS_CHANGE", "data": {"status": "ready"}}
    monitor = FakeMonitor(sock_path, {"query-status": {"return": {"status": "running"}}},
                          stale=[event])
    with QMPClient(sock_path) as client:
        assert client.execute("query-status") == {"status": "running"}
        assert client.events == [event]
    monitor.close()


def test_arguments_are_sent(sock_path):
    monitor = FakeMonitor(sock_path, {})
    with QMPClient(sock_path) as client:
        client.execute("migrate", uri="exec:cat > x")
    assert monitor.received[-1] == {"execute": "migrate", "arguments": {"uri": "exec:cat > x"}}
    monitor.close()


def test_error_reply_raises_with_class_and_description(sock_path):
    monitor = FakeMonitor(sock_path, {"cont": {"error": {"class": "GenericError",
                                                         "desc": "Migration is not done"}}})
    with QMPClient(sock_path) as client, pytest.raises(QMPError, match="GenericError"):
        client.execute("cont")
    monitor.close()


def test_events_between_replies_are_kept_and_awaitable(sock_path):
    event = {"event": "POWERDOWN", "timestamp": {"seconds": 1, "microseconds": 0}}
    monitor = FakeMonitor(sock_path, {}, events_before={"system_powerdown": [event]})
    with QMPClient(sock_path) as client:
        client.execute("system_powerdown")
        assert client.wait_event("POWERDOWN", timeout=0.1) == event
        assert client.wait_event("SHUTDOWN", timeout=0.1) is None
    monitor.close()


def test_hang_up_is_an_error(sock_path):
    monitor = FakeMonitor(sock_path, {"quit": None})
    with QMPClient(sock_path) as client, pytest.raises(QMPError, match="closed"):
        client.execute("quit")
    monitor.close()


def test_missing_socket_is_an_error(tmp_path):
    with pytest.raises(QMPError, match="cannot connect"):
        QMPClient(str(tmp_path / "absent.sock")).connect()


def test_socket_deeper_than_a_unix_address_allows(tmp_path):
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    deep.mkdir(parents=True)
    path = str(deep / "qmp.sock")
    assert len(path) > 108
    cwd = os.getcwd()
    os.chdir(deep)  # bind as QEMU does: relative to the instance directory
    try:
        monitor = FakeMonitor("qmp.sock", {"query-status": {"return": {"status": "paused"}}})
    finally:
        os.chdir(cwd)
    with QMPClient(path) as client:
        assert client.execute("query-status") == {"status": "paused"}
    monitor.close()
