"""A guest agent for tests: QGA's protocol on a unix socket, as QEMU's chardev hands the
guest's side over."""

from __future__ import annotations

import json
import os
import socket
import threading


class Agent:
    """Answers on `path` as qemu-ga does: after a guest-sync-delimited, 0xFF then the
    id; after other commands, `answer` (or nothing at all when `silent`)."""

    def __init__(self, path: str, answer: dict | None = None, silent: bool = False,
                 stale: bytes = b"") -> None:
        self.answer = answer if answer is not None else {"return": {}}
        self.silent, self.stale = silent, stale
        self.commands: list[dict] = []
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        directory = os.open(os.path.dirname(path), os.O_PATH)  # a path of any depth
        try:
            self.listener.bind(f"/proc/self/fd/{directory}/{os.path.basename(path)}")
        finally:
            os.close(directory)
        self.listener.listen(1)
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        conn, _ = self.listener.accept()
        with conn:
            conn.sendall(self.stale)
            decoder, buffer = json.JSONDecoder(), ""
            while chunk := conn.recv(65536):
                buffer += chunk.replace(b"\xff", b"").decode()
                while buffer.strip():
                    try:
                        command, end = decoder.raw_decode(buffer.lstrip())
                    except ValueError:
                        break
                    buffer = buffer.lstrip()[end:]
                    self.commands.append(command)
                    if self.silent:
                        continue
                    if command["execute"] == "guest-sync-delimited":
                        reply = b"\xff" + json.dumps(
                            {"return": command["arguments"]["id"]}).encode() + b"\n"
                    else:
                        reply = json.dumps(self.answer).encode() + b"\n"
                    conn.sendall(reply)
