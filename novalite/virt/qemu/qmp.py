"""A small synchronous client of QEMU's machine protocol (QMP) over a unix socket.

One short connection per operation: the compute's threads never share a connection, and a
compute service that restarted talks to the guests it left running exactly as before.
QEMU's QMP server takes one client at a time, so callers serialise per guest (the compute
manager's per-instance lock does).
"""

from __future__ import annotations

import json
import os
import socket
import time
from typing import Any


class QMPError(Exception):
    """QEMU answered with an error, or the monitor could not be reached."""


# sun_path holds 107 bytes; instance directories can be deeper than that.
MAX_SOCKET_PATH = 100


def connect_unix(sock: socket.socket, path: str) -> None:
    """Connect to a unix socket at any depth: a long path is reached through a short
    /proc/self/fd link to its directory."""
    if len(path.encode()) <= MAX_SOCKET_PATH:
        sock.connect(path)
        return
    directory = os.open(os.path.dirname(path) or ".", os.O_PATH)
    try:
        sock.connect(f"/proc/self/fd/{directory}/{os.path.basename(path)}")
    finally:
        os.close(directory)


class QMPClient:
    def __init__(self, path: str, timeout: float = 5.0) -> None:
        self.path = path
        self.timeout = timeout
        self.events: list[dict[str, Any]] = []
        self._sock: socket.socket | None = None
        self._buffer = b""

    def __enter__(self) -> QMPClient:
        self.connect()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def connect(self) -> None:
        """Connect and leave capabilities negotiation mode (QMP's handshake)."""
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(self.timeout)
        try:
            connect_unix(sock, self.path)
        except OSError as exc:
            sock.close()
            raise QMPError(f"cannot connect to the QMP socket {self.path}: {exc}") from exc
        self._sock = sock
        greeting = self._read_message()
        while "event" in greeting:  # one queued for the previous client comes first
            self.events.append(greeting)
            greeting = self._read_message()
        if "QMP" not in greeting:
            self.close()
            raise QMPError(f"not a QMP greeting: {greeting}")
        self.execute("qmp_capabilities")

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None

    def execute(self, command: str, **arguments: Any) -> Any:
        """Run a command and return its `return` value; events that arrive meanwhile are
        kept in `events`."""
        message: dict[str, Any] = {"execute": command}
        if arguments:
            message["arguments"] = arguments
        self._send(message)
        return self._reply(command)

    def _reply(self, command: str) -> Any:
        while True:
            reply = self._read_message()
            if "event" in reply:
                self.events.append(reply)
            elif "error" in reply:
                error = reply["error"]
                raise QMPError(f"{command}: {error.get('class')}: {error.get('desc')}")
            elif "return" in reply:
                return reply["return"]

    def send_fd(self, name: str, fd: int) -> None:
        """Hand QEMU an open descriptor (SCM_RIGHTS with QMP's getfd), which later
        commands name `name` (a hot-plugged NIC's tap)."""
        if self._sock is None:
            raise QMPError("not connected")
        message = json.dumps({"execute": "getfd", "arguments": {"fdname": name}})
        try:
            socket.send_fds(self._sock, [message.encode() + b"\n"], [fd])
        except OSError as exc:
            raise QMPError(f"QMP connection to {self.path} lost: {exc}") from exc
        self._reply("getfd")

    def wait_event(self, name: str, timeout: float) -> dict[str, Any] | None:
        """The first event called `name` (already received or arriving within `timeout`
        seconds), or None; a closed connection (QEMU exited) also ends the wait."""
        deadline = time.monotonic() + timeout
        while True:
            for event in self.events:
                if event["event"] == name:
                    self.events.remove(event)
                    return event
            remaining = deadline - time.monotonic()
            if remaining <= 0 or self._sock is None:
                return None
            self._sock.settimeout(remaining)
            try:
                message = self._read_message()
            except QMPError:
                return None
            if "event" in message:
                self.events.append(message)

    def _send(self, message: dict[str, Any]) -> None:
        if self._sock is None:
            raise QMPError("not connected")
        try:
            self._sock.sendall(json.dumps(message).encode() + b"\n")
        except OSError as exc:
            raise QMPError(f"QMP connection to {self.path} lost: {exc}") from exc

    def _read_message(self) -> dict[str, Any]:
        while b"\n" not in self._buffer:
            if self._sock is None:
                raise QMPError("not connected")
            try:
                chunk = self._sock.recv(65536)
            except TimeoutError as exc:
                raise QMPError(f"no answer on {self.path} within {self.timeout}s") from exc
            except OSError as exc:
                raise QMPError(f"QMP connection to {self.path} lost: {exc}") from exc
            if not chunk:
                self.close()
                raise QMPError(f"QEMU closed the QMP connection {self.path}")
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        try:
            return json.loads(line)
        except ValueError as exc:
            raise QMPError(f"unreadable QMP message: {line[:200]!r}") from exc
