"""The fake driver's remote consoles, real enough for a real console proxy to connect to.

Each simulated host has one TCP listener on 127.0.0.1, at a port the kernel picks, for
all its guests; so a client first names the console it wants, as Nova's proxy does:
`CONNECT <type>/<instance uuid> HTTP/1.1`, answered 200 if that guest runs on the host
(404 otherwise, and closed). Then it talks to the guest's console:

- `vnc`: RFB 3.8 (or 3.7, 3.3) as QEMU's VNC server speaks it, with no authentication,
  for a blank 640x480 screen, so noVNC or any VNC viewer shows the guest;
- `serial`: the guest's console log so far, then a tty with echo: what the client types
  comes back, and each line it ends joins the console log that os-getConsoleOutput shows.

A connection lives no longer than its guest runs here (the driver calls close_guest),
as one to a QEMU process that exits; stop() closes the listener and every connection and
waits for their threads, so a stopped compute service leaves nothing listening.
"""

from __future__ import annotations

import contextlib
import io
import socket
import struct
import threading
from collections.abc import Callable
from typing import Protocol

from novalite.objects.console import ConsoleEndpoint

_ADDRESS = "127.0.0.1"
_MAX_REQUEST_LINE = 4096

_WIDTH, _HEIGHT = 640, 480
_SECURITY_NONE = 1
# ServerInit's pixel format: 32 bits per pixel, depth 24, little-endian, true colour,
# 8 bits each of red, green and blue at shifts 16, 8 and 0 (what QEMU offers)
_PIXEL_FORMAT = struct.pack(">BBBBHHHBBB3x", 32, 24, 0, 1, 255, 255, 255, 16, 8, 0)
# client message type -> the fixed length that follows it (SetEncodings and
# ClientCutText are followed by a variable part, read apart)
_FIXED = {0: 19, 2: 3, 3: 9, 4: 7, 5: 5, 6: 7}
_SET_PIXEL_FORMAT, _SET_ENCODINGS, _UPDATE_REQUEST, _CLIENT_CUT_TEXT = 0, 2, 3, 6

_CR, _LF, _NUL = 13, 10, 0

# a console's conversation, once its CONNECT was answered: (connection, its reader,
# the guest's uuid)
_Console = Callable[[socket.socket, io.BufferedReader, str], None]


class Guests(Protocol):
    """What the console server asks of the driver whose guests it serves."""

    def console_running(self, instance_uuid: str) -> bool: ...

    def console_log(self, instance_uuid: str) -> list[str]: ...

    def console_typed(self, instance_uuid: str, line: str) -> None: ...


class ConsoleServer:
    """One simulated host's console listener: a thread accepting, one per connection."""

    def __init__(self, guests: Guests, host: str) -> None:
        self._guests = guests
        self._thread_name = f"fake-console-{host}"
        self._lock = threading.Lock()
        self._names: dict[str, str] = {}  # instance uuid -> what a VNC client titles it
        # each open connection -> the guest it named (None until it has)
        self._connections: dict[socket.socket, str | None] = {}
        self._threads: list[threading.Thread] = []
        self._stopping = False
        self._consoles: dict[str, _Console] = {"vnc": self._vnc, "serial": self._serial}
        self._listener = socket.create_server((_ADDRESS, 0))
        self.port: int = self._listener.getsockname()[1]
        self._acceptor = threading.Thread(target=self._accept, name=self._thread_name,
                                          daemon=True)
        self._acceptor.start()

    def endpoint(self, kind: str, instance_uuid: str, name: str) -> ConsoleEndpoint:
        """Where the proxy reaches the guest's `kind` ("vnc" or "serial") console; `name`
        is the desktop name a VNC client shows."""
        with self._lock:
            self._names[instance_uuid] = name
        return ConsoleEndpoint(host=_ADDRESS, port=self.port,
                               internal_access_path=f"{kind}/{instance_uuid}")

    def close_guest(self, instance_uuid: str) -> None:
        """Hang up the guest's connections (it stopped or left the host); safe under the
        driver's lock, as it does not wait for their threads."""
        with self._lock:
            self._names.pop(instance_uuid, None)
            doomed = [conn for conn, guest in self._connections.items()
                      if guest == instance_uuid]
        for conn in doomed:
            _hang_up(conn)

    def stop(self) -> None:
        """Close the listener and every connection, and wait for all their threads (so
        not while holding a lock a connection's thread may be waiting for)."""
        with self._lock:
            self._stopping = True
            connections, threads = list(self._connections), list(self._threads)
        # accept() cannot be interrupted portably: a connection of our own wakes it
        socket.create_connection((_ADDRESS, self.port)).close()
        self._acceptor.join()
        self._listener.close()
        for conn in connections:
            _hang_up(conn)
        for thread in threads:
            thread.join()

    def _accept(self) -> None:
        while True:
            conn, _ = self._listener.accept()
            with self._lock:  # stop() then sees every thread started before it
                if self._stopping:
                    conn.close()
                    return
                self._connections[conn] = None
                thread = threading.Thread(target=self._serve, args=(conn,),
                                          name=self._thread_name, daemon=True)
                self._threads = [t for t in self._threads if t.is_alive()] + [thread]
                thread.start()

    def _serve(self, conn: socket.socket) -> None:
        try:
            with conn.makefile("rb") as reader:
                opened = self._open(conn, reader)
                if opened is not None:
                    console, instance_uuid = opened
                    console(conn, reader, instance_uuid)
        except (OSError, EOFError):
            pass  # the client left, or the guest or stop() hung up
        finally:
            with self._lock:
                del self._connections[conn]
            conn.close()

    def _open(self, conn: socket.socket, reader: io.BufferedReader) -> tuple[_Console, str] | None:
        """The console and guest the client's CONNECT names, answered 200 if the guest
        runs here; None if the client was refused."""
        request = reader.readline(_MAX_REQUEST_LINE).split()
        while reader.readline(_MAX_REQUEST_LINE) not in (b"\r\n", b"\n", b""):
            pass  # headers: nothing in them matters here
        if len(request) != 3 or request[0] != b"CONNECT":
            conn.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n")
            return None
        kind, _, instance_uuid = request[1].decode(errors="replace").partition("/")
        with self._lock:  # named before the check: a guest leaving after it closes this
            self._connections[conn] = instance_uuid
        console = self._consoles.get(kind)
        if console is None or not self._guests.console_running(instance_uuid):
            conn.sendall(b"HTTP/1.1 404 Not Found\r\n\r\n")
            return None
        conn.sendall(b"HTTP/1.1 200 OK\r\n\r\n")
        return console, instance_uuid

    def _vnc(self, conn: socket.socket, reader: io.BufferedReader,
             instance_uuid: str) -> None:
        with self._lock:
            name = self._names.get(instance_uuid, instance_uuid)
        _rfb_handshake(conn, reader, name)
        _rfb_messages(conn, reader)

    def _serial(self, conn: socket.socket, reader: io.BufferedReader,
                instance_uuid: str) -> None:
        log = self._guests.console_log(instance_uuid)
        conn.sendall("".join(f"{line}\r\n" for line in log).encode())
        tty = _Tty()
        while data := reader.read1(4096):
            echo, lines = tty.feed(data)
            for line in lines:  # logged before the echo, which tells the client it is
                self._guests.console_typed(instance_uuid, line)
            conn.sendall(echo)


def _rfb_handshake(conn: socket.socket, reader: io.BufferedReader, name: str) -> None:
    """From ProtocolVersion to ServerInit; an earlier client version gets the earlier
    security handshake (RFC 6143 says to treat any but 3.7 and 3.8 as 3.3)."""
    conn.sendall(b"RFB 003.008\n")
    version = _exactly(reader, 12)
    if not version.startswith(b"RFB "):
        raise ConnectionAbortedError("not a VNC client")
    if version in (b"RFB 003.007\n", b"RFB 003.008\n"):
        conn.sendall(bytes([1, _SECURITY_NONE]))
        if _exactly(reader, 1)[0] != _SECURITY_NONE:
            raise ConnectionAbortedError("a security type that was not offered")
        if version == b"RFB 003.008\n":
            conn.sendall(struct.pack(">I", 0))  # SecurityResult OK
    else:
        conn.sendall(struct.pack(">I", _SECURITY_NONE))
    _exactly(reader, 1)  # ClientInit: shared or not, it is all one to a blank screen
    encoded = name.encode()
    conn.sendall(struct.pack(">HH", _WIDTH, _HEIGHT) + _PIXEL_FORMAT
                 + struct.pack(">I", len(encoded)) + encoded)


def _rfb_messages(conn: socket.socket, reader: io.BufferedReader) -> None:
    """Read the client's messages until it leaves: each is read whole, so the stream
    stays in step; only an update request needs an answer."""
    bytes_per_pixel, whole_screen_sent = 4, False
    while True:
        kind = _exactly(reader, 1)[0]
        if kind not in _FIXED:
            raise ConnectionAbortedError(f"unknown RFB client message {kind}")
        body = _exactly(reader, _FIXED[kind])
        if kind == _SET_PIXEL_FORMAT:
            bytes_per_pixel = body[3] // 8
        elif kind == _SET_ENCODINGS:
            _exactly(reader, 4 * struct.unpack(">xH", body)[0])
        elif kind == _CLIENT_CUT_TEXT:
            _skip(reader, struct.unpack(">3xI", body)[0])
        elif kind == _UPDATE_REQUEST:
            incremental, *area = struct.unpack(">BHHHH", body)
            if not incremental or not whole_screen_sent:  # a blank screen never changes
                whole_screen_sent |= _send_black(conn, area, bytes_per_pixel)


def _send_black(conn: socket.socket, area: list[int], bytes_per_pixel: int) -> bool:
    """A FramebufferUpdate of the requested area (within the screen) as one raw black
    rectangle; whether it was the whole screen."""
    x, y, width, height = area
    x, y = min(x, _WIDTH), min(y, _HEIGHT)
    width, height = min(width, _WIDTH - x), min(height, _HEIGHT - y)
    conn.sendall(struct.pack(">BxHHHHHi", 0, 1, x, y, width, height, 0)
                 + bytes(width * height * bytes_per_pixel))
    return (width, height) == (_WIDTH, _HEIGHT)


class _Tty:
    """A terminal's line discipline with echo: CR, LF, CR LF or CR NUL (telnet's Enter)
    end a line, echoed as CR LF; anything else is echoed as it comes."""

    def __init__(self) -> None:
        self._line = bytearray()
        self._last = 0

    def feed(self, data: bytes) -> tuple[bytes, list[str]]:
        """What to echo, and the lines `data` ended."""
        echo, lines = bytearray(), []
        for byte in data:
            if self._last == _CR and byte in (_LF, _NUL):
                pass  # the rest of the Enter whose CR ended the line
            elif byte in (_CR, _LF):
                echo += b"\r\n"
                lines.append(self._line.decode(errors="replace"))
                self._line.clear()
            else:
                echo.append(byte)
                self._line.append(byte)
            self._last = byte
        return bytes(echo), lines


def _exactly(reader: io.BufferedReader, length: int) -> bytes:
    data = reader.read(length)
    if len(data) < length:
        raise EOFError("the client left mid-message")
    return data


def _skip(reader: io.BufferedReader, length: int) -> None:
    """Discard `length` bytes without holding them all (a cut text may be large)."""
    while length:
        length -= len(_exactly(reader, min(length, 65536)))


def _hang_up(conn: socket.socket) -> None:
    """Wake the connection's thread from its read or write, which then closes it."""
    with contextlib.suppress(OSError):  # it closed already
        conn.shutdown(socket.SHUT_RDWR)
