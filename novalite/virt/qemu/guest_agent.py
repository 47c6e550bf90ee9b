"""A client of the QEMU guest agent (qemu-ga) a guest runs when its image says it does
(`hw_qemu_guest_agent`): the guest's virtio-serial port `org.qemu.guest_agent.0`, which
QEMU joins to a unix socket in the instance directory.

Each use opens the socket, resynchronises (an agent keeps no state between clients, and
may have a previous client's half-read command in its parser: QGA's guest-sync-delimited
with its 0xFF marker), then runs its command, as libvirt does. An agent that does not
answer the sync in time is unresponsive: the guest runs none, or it has not started yet.
"""

from __future__ import annotations

import base64
import json
import random
import socket
from typing import Any

from novalite.virt.qemu.qmp import connect_unix

PORT_NAME = "org.qemu.guest_agent.0"
SYNC_TIMEOUT = 5.0  # libvirt's wait for guest-sync
COMMAND_TIMEOUT = 30.0
_DELIMITER = b"\xff"


class AgentUnresponsive(Exception):
    """No agent answered on the guest's channel."""


class AgentError(Exception):
    """The agent answered a command with an error (its class and description)."""


def set_user_password(path: str, user: str, password: str) -> None:
    """Set `user`'s password in the guest (qemu-ga's guest-set-user-password, which runs
    the guest's chpasswd); the password travels base64-encoded, as QGA requires."""
    _run(path, "guest-set-user-password", username=user, crypted=False,
         password=base64.b64encode(password.encode()).decode())


def _run(path: str, command: str, **arguments: Any) -> Any:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        try:
            connect_unix(sock, path)
        except OSError as exc:
            raise AgentUnresponsive(f"cannot reach the guest agent at {path}: {exc}") from exc
        _sync(sock)
        sock.settimeout(COMMAND_TIMEOUT)
        sock.sendall(json.dumps({"execute": command, "arguments": arguments}).encode())
        reply = _read_reply(sock, b"")[0]
    except TimeoutError as exc:
        raise AgentUnresponsive(f"the guest agent did not answer {command}") from exc
    except OSError as exc:
        raise AgentUnresponsive(f"the guest agent's channel failed: {exc}") from exc
    finally:
        sock.close()
    if "error" in reply:
        error = reply["error"]
        raise AgentError(f"{command}: {error.get('class')}: {error.get('desc')}")
    return reply.get("return")


def _sync(sock: socket.socket) -> None:
    """Reset the agent's parser and wait for the answer carrying our id: whatever came
    before its 0xFF marker belongs to an earlier client."""
    sync_id = random.randrange(1, 2**31)
    sock.settimeout(SYNC_TIMEOUT)
    sock.sendall(_DELIMITER + json.dumps({"execute": "guest-sync-delimited",
                                          "arguments": {"id": sync_id}}).encode())
    buffer = b""
    try:
        while True:
            while _DELIMITER not in buffer:
                buffer = _received(sock, buffer)
            buffer = buffer.split(_DELIMITER)[-1]
            reply, buffer = _read_reply(sock, buffer)
            if reply.get("return") == sync_id:
                return
    except TimeoutError:
        raise AgentUnresponsive("the guest agent did not answer guest-sync") from None


def _read_reply(sock: socket.socket, buffer: bytes) -> tuple[dict[str, Any], bytes]:
    """The next JSON object the agent sends (one a line), and what follows it."""
    while b"\n" not in buffer:
        buffer = _received(sock, buffer)
    line, rest = buffer.split(b"\n", 1)
    try:
        return json.loads(line), rest
    except ValueError as exc:
        raise AgentError(f"unreadable answer from the guest agent: {line[:200]!r}") from exc


def _received(sock: socket.socket, buffer: bytes) -> bytes:
    chunk = sock.recv(65536)
    if not chunk:
        raise AgentUnresponsive("the guest agent's channel closed")
    return buffer + chunk
