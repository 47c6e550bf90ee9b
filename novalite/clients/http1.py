"""HTTP/1.1 to one server the process runs itself: the all-in-one's own, on loopback.

urllib3 over http.client spent 420 µs of CPU a request on a 2-core machine, most of it
building header objects and parsing the answer's headers with the email package; a
request here is one write and most often one read (90 µs). A service of the all-in-one
makes several such calls per boot and per volume attachment (placement, Neutron, Cinder).
It speaks what an HTTP/1.1 server may answer (a body by Content-Length, chunked, or up to
the close; interim 1xx answers skipped; keep-alive unless closed) and nothing a trusted
server on loopback does not need: no proxies, TLS, redirects, or compression.
"""

from __future__ import annotations

import re
import select
import socket
import threading
from dataclasses import dataclass

MAX_HEAD = 65536  # bytes of status line and headers an answer may have
_READ = 65536
_UNSAFE_PATH = re.compile(r"[\x00-\x20\x7f]")  # as http.client refuses in a URL
_UNSAFE_HEADER = re.compile(r"[\r\n\x00]")  # a header that would end or split the head
_NO_BODY = frozenset({204, 304})


class ConnectionFailed(Exception):
    """The server could not be reached, or its answer did not arrive whole or as HTTP."""


class Headers:
    """An answer's headers, by name in any case (repeated ones joined by ", ")."""

    def __init__(self) -> None:
        self._by_name: dict[str, str] = {}

    def add(self, name: str, value: str) -> None:
        name = name.lower()
        before = self._by_name.get(name)
        self._by_name[name] = value if before is None else f"{before}, {value}"

    def get(self, name: str, default: str = "") -> str:
        return self._by_name.get(name.lower(), default)

    def __getitem__(self, name: str) -> str:
        return self._by_name[name.lower()]

    def __contains__(self, name: str) -> bool:
        return name.lower() in self._by_name

    def items(self) -> list[tuple[str, str]]:
        return list(self._by_name.items())


@dataclass
class Answer:
    status: int
    headers: Headers
    body: bytes


class _Connection:
    def __init__(self, host: str, port: int, timeout: float | None) -> None:
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._idle = select.poll()
        self._idle.register(self.sock, select.POLLIN)
        self._buffer = bytearray()

    def dropped(self) -> bool:
        """Readable while no request is out: the server closed it (its keep-alive
        timeout) or sent what was not asked for; either way, not to be used again."""
        return bool(self._idle.poll(0))

    def close(self) -> None:
        self.sock.close()

    def _fill(self) -> bool:
        chunk = self.sock.recv(_READ)
        self._buffer += chunk
        return bool(chunk)

    def _take(self, count: int) -> bytes:
        while len(self._buffer) < count:
            if not self._fill():
                raise ConnectionFailed("the server closed the connection mid-answer")
        taken = bytes(self._buffer[:count])
        del self._buffer[:count]
        return taken

    def _line(self) -> bytes:
        while (end := self._buffer.find(b"\r\n")) < 0:
            if len(self._buffer) > MAX_HEAD:
                raise ConnectionFailed("an answer's line is too long")
            if not self._fill():
                raise ConnectionFailed("the server closed the connection mid-answer")
        line = bytes(self._buffer[:end])
        del self._buffer[:end + 2]
        return line

    def _head(self) -> tuple[int, str, Headers]:
        while (end := self._buffer.find(b"\r\n\r\n")) < 0:
            if len(self._buffer) > MAX_HEAD:
                raise ConnectionFailed("an answer's headers are too long")
            if not self._fill():
                raise ConnectionFailed("the server closed the connection before answering"
                                       if not self._buffer else
                                       "the server closed the connection mid-answer")
        lines = self._buffer[:end].decode("latin-1").split("\r\n")
        del self._buffer[:end + 4]
        version, _, rest = lines[0].partition(" ")
        code = rest[:3]
        if not version.startswith("HTTP/1.") or not code.isdigit():
            raise ConnectionFailed(f"not an HTTP/1 answer: {lines[0][:80]!r}")
        headers = Headers()
        for line in lines[1:]:
            name, colon, value = line.partition(":")
            if not colon:
                raise ConnectionFailed(f"a malformed header line: {line[:80]!r}")
            headers.add(name.strip(), value.strip())
        return int(code), version, headers

    def _chunked(self) -> bytes:
        parts: list[bytes] = []
        while True:
            size_line = self._line().split(b";", 1)[0].strip()
            try:
                size = int(size_line, 16)
            except ValueError:
                raise ConnectionFailed(f"a malformed chunk size: {size_line[:20]!r}") from None
            if size == 0:
                while self._line():  # trailers, up to the empty line
                    pass
                return b"".join(parts)
            parts.append(self._take(size))
            if self._take(2) != b"\r\n":
                raise ConnectionFailed("a chunk not ended by CRLF")

    def _to_close(self) -> bytes:
        while self._fill():
            pass
        body = bytes(self._buffer)
        self._buffer.clear()
        return body

    def exchange(self, method: str, request: bytes) -> tuple[Answer, bool]:
        """The answer to `request` (head and body), and whether the connection may carry
        another."""
        self.sock.sendall(request)
        status, version, headers = self._head()
        while 100 <= status < 200:  # interim answers (103 Early Hints) precede the final
            status, version, headers = self._head()
        connection = headers.get("connection").lower()
        reusable = "close" not in connection and (
            version != "HTTP/1.0" or "keep-alive" in connection)
        if method == "HEAD" or status in _NO_BODY:
            body = b""
        elif "chunked" in headers.get("transfer-encoding").lower():
            body = self._chunked()
        elif "content-length" in headers:
            length = headers["content-length"]
            if not length.isdigit():
                raise ConnectionFailed(f"a malformed Content-Length: {length[:20]!r}")
            body = self._take(int(length))
        else:
            body, reusable = self._to_close(), False
        return Answer(status, headers, body), reusable and not self._buffer


class Pool:
    """Kept-alive connections to one server, safe to share between threads: a request
    takes an idle one (or opens one) and gives it back after its answer, keeping at most
    `maxsize` idle ones."""

    def __init__(self, host: str, port: int, timeout: float | None, maxsize: int = 16
                 ) -> None:
        self._host, self._port, self._timeout, self._maxsize = host, port, timeout, maxsize
        self._authority = f"{host}:{port}"
        self._idle: list[_Connection] = []
        self._lock = threading.Lock()

    def _connection(self) -> _Connection:
        while True:
            with self._lock:
                found = self._idle.pop() if self._idle else None
            if found is None:
                return _Connection(self._host, self._port, self._timeout)
            if not found.dropped():
                return found
            found.close()

    def _give_back(self, connection: _Connection) -> None:
        with self._lock:
            if len(self._idle) < self._maxsize:
                self._idle.append(connection)
                return
        connection.close()

    def request(self, method: str, path: str, body: bytes | None,
                headers: dict[str, str]) -> Answer:
        """Raises ValueError for a path or header that would corrupt the request, and
        ConnectionFailed for a server not reached or an answer not read whole."""
        if _UNSAFE_PATH.search(path) or _UNSAFE_PATH.search(method):
            raise ValueError(f"the method or path of {method} {path!r} has a space or "
                             "control character")
        lines = [f"{method} {path} HTTP/1.1", f"Host: {self._authority}"]
        for name, value in headers.items():
            if _UNSAFE_HEADER.search(name) or _UNSAFE_HEADER.search(value) or ":" in name:
                raise ValueError(f"header {name!r} has a character that would end it")
            lines.append(f"{name}: {value}")
        if body is not None or method in ("POST", "PUT", "PATCH"):
            lines.append(f"Content-Length: {len(body or b'')}")
        request = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + (body or b"")
        try:
            connection = self._connection()
        except OSError as exc:
            raise ConnectionFailed(f"cannot connect to {self._authority}: {exc}") from exc
        try:
            answer, reusable = connection.exchange(method, request)
        except OSError as exc:
            connection.close()
            raise ConnectionFailed(f"{method} {path} to {self._authority}: {exc}") from exc
        except BaseException:
            connection.close()
            raise
        if reusable:
            self._give_back(connection)
        else:
            connection.close()
        return answer
