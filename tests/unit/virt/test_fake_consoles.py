"""The fake driver's remote consoles, spoken to over real sockets as a console proxy does."""

import socket
import struct
import threading

import pytest

from novalite import exception
from novalite.objects.instance import Instance
from novalite.virt.fake import FakeDriver

GUEST = Instance(uuid="u-1", display_name="web-1")


@pytest.fixture
def driver(conf):
    driver = FakeDriver()
    driver.init_host("h1")
    driver.spawn(None, GUEST, None)
    yield driver
    driver.cleanup_host("h1")


class Client:
    """A console proxy's side of a connection: every read waits for its bytes (with a
    deadline, so a server that never answers fails the test rather than hangs it)."""

    def __init__(self, port: int, path: str) -> None:
        self.path = path
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.reader = self.sock.makefile("rb")

    def connect(self, path: str | None = None) -> bytes:
        """CONNECT to `path` (by default the endpoint's); the status line answered."""
        path = path or self.path
        self.sock.sendall(f"CONNECT {path} HTTP/1.1\r\nHost: h1\r\n\r\n".encode())
        status = self.reader.readline()
        assert self.reader.readline() == b"\r\n"
        return status

    def read(self, length: int) -> bytes:
        data = self.reader.read(length)
        assert len(data) == length, f"{data!r}: the server closed early"
        return data

    def rest(self) -> bytes:
        """What the server sent before it closed the connection."""
        return self.reader.read()

    def close(self) -> None:
        self.reader.close()
        self.sock.close()


@pytest.fixture
def console(driver):
    """Connect to where the driver says the guest's console of a kind is, as the proxy
    does; the client's `path` is the one to CONNECT to."""
    clients: list[Client] = []

    def console(kind: str = "vnc") -> Client:
        endpoint = getattr(driver, f"get_{kind}_console")(None, GUEST)
        clients.append(Client(endpoint.port, endpoint.internal_access_path))
        return clients[-1]

    yield console
    for client in clients:
        client.close()


def _console_threads() -> list[threading.Thread]:
    return [thread for thread in threading.enumerate()
            if thread.name == "fake-console-h1"]


def test_the_endpoint_names_the_guest_on_a_local_listener(driver):
    vnc, serial = driver.get_vnc_console(None, GUEST), driver.get_serial_console(None, GUEST)
    assert (vnc.host, vnc.internal_access_path) == ("127.0.0.1", "vnc/u-1")
    assert (serial.port, serial.internal_access_path) == (vnc.port, "serial/u-1")


def test_only_a_guest_of_the_host_has_a_console(driver):
    with pytest.raises(exception.InstanceNotFound):
        driver.get_vnc_console(None, Instance(uuid="elsewhere"))


@pytest.mark.parametrize("path", ["vnc/elsewhere", "spice/u-1", "u-1"])
def test_a_connect_naming_no_console_here_gets_404(console, path):
    client = console()
    assert client.connect(path) == b"HTTP/1.1 404 Not Found\r\n"
    assert client.rest() == b""


def test_a_stopped_guest_has_no_console_to_connect_to(driver, console):
    client = console()
    driver.power_off(GUEST)
    assert client.connect() == b"HTTP/1.1 404 Not Found\r\n"
    with pytest.raises(exception.ConsoleTypeUnavailable):
        driver.get_serial_console(None, GUEST)


def _rfb_handshake(client: Client, version: bytes) -> tuple:
    """Up to ServerInit, as a VNC client of `version` goes; ServerInit's fields."""
    assert client.connect() == b"HTTP/1.1 200 OK\r\n"
    assert client.read(12) == b"RFB 003.008\n"
    client.sock.sendall(version)
    if version == b"RFB 003.003\n":
        assert struct.unpack(">I", client.read(4)) == (1,)  # the server chose None
    else:
        assert client.read(2) == bytes([1, 1])  # one type offered: None
        client.sock.sendall(bytes([1]))
        assert struct.unpack(">I", client.read(4)) == (0,)  # SecurityResult OK
    client.sock.sendall(bytes([1]))  # ClientInit, shared
    *init, name_length = struct.unpack(">HHBBBBHHHBBB3xI", client.read(24))
    return (*init, client.read(name_length))


@pytest.mark.parametrize("version", [b"RFB 003.008\n", b"RFB 003.003\n"])
def test_vnc_speaks_rfb_for_a_blank_screen_named_after_the_guest(console, version):
    assert _rfb_handshake(console(), version) == (
        640, 480,  # width, height
        32, 24, 0, 1,  # bits per pixel, depth, big-endian, true colour
        255, 255, 255, 16, 8, 0,  # red, green, blue maxima and shifts
        b"web-1")


def test_vnc_reads_each_client_message_whole_and_draws_black(console):
    client = console()
    _rfb_handshake(client, b"RFB 003.008\n")
    client.sock.sendall(
        struct.pack(">B3xBBBBHHHBBB3x", 0, 16, 16, 0, 1, 31, 63, 31, 11, 5, 0)  # 16 bpp
        + struct.pack(">BxHii", 2, 2, 0, -223)  # SetEncodings: raw, DesktopSize
        + struct.pack(">BBxxI", 4, 1, 0x61)  # KeyEvent
        + struct.pack(">BBHH", 5, 0, 10, 10)  # PointerEvent
        + struct.pack(">B3xI", 6, 5) + b"hello"  # ClientCutText
        + struct.pack(">BBHHHH", 3, 0, 630, 470, 20, 20))  # partly off the screen
    # one raw rectangle, clipped to the screen, of 2-byte black pixels
    assert struct.unpack(">BxHHHHHi", client.read(16)) == (0, 1, 630, 470, 10, 10, 0)
    assert client.read(10 * 10 * 2) == bytes(200)


def test_an_incremental_request_gets_the_screen_once(console):
    """Then nothing: a blank screen never changes, so the next answer is to the next
    non-incremental request."""
    client = console()
    _rfb_handshake(client, b"RFB 003.008\n")
    client.sock.sendall(struct.pack(">BBHHHH", 3, 1, 0, 0, 640, 480) * 2
                        + struct.pack(">BBHHHH", 3, 0, 1, 2, 3, 4))
    assert struct.unpack(">BxHHHHHi", client.read(16)) == (0, 1, 0, 0, 640, 480, 0)
    assert client.read(640 * 480 * 4) == bytes(640 * 480 * 4)
    assert struct.unpack(">BxHHHHHi", client.read(16)) == (0, 1, 1, 2, 3, 4, 0)


def test_serial_shows_the_log_then_echoes_and_logs_typed_lines(driver, console):
    client = console("serial")
    assert client.connect() == b"HTTP/1.1 200 OK\r\n"
    log = driver.get_console_output(None, GUEST)
    assert client.read(len(log) + log.count("\n")) == log.replace("\n", "\r\n").encode()
    client.sock.sendall(b"uname\r\nls")
    assert client.read(7 + 2) == b"uname\r\nls"
    client.sock.sendall(b" /\r")
    assert client.read(4) == b" /\r\n"  # logged before it is echoed
    assert driver.get_console_output(None, GUEST) == log + "uname\nls /\n"


def test_a_guest_deleted_takes_its_open_connections_with_it(driver, console):
    serial = console("serial")
    assert serial.connect() == b"HTTP/1.1 200 OK\r\n"
    log = driver.get_console_output(None, GUEST)
    serial.read(len(log) + log.count("\n"))
    vnc = console()
    _rfb_handshake(vnc, b"RFB 003.008\n")
    driver.destroy(None, GUEST)
    assert serial.rest() == b""
    assert vnc.rest() == b""


def test_a_guest_powered_off_closes_its_console_a_paused_one_keeps_it(driver, console):
    client = console()
    _rfb_handshake(client, b"RFB 003.008\n")
    driver.pause(GUEST)
    client.sock.sendall(struct.pack(">BBHHHH", 3, 0, 0, 0, 1, 1))  # a 1x1 update
    assert client.read(4) == b"\x00\x00\x00\x01"  # FramebufferUpdate, one rectangle
    client.read(12 + 4)  # the rectangle's header and its one 32-bit black pixel
    driver.unpause(GUEST)
    driver.power_off(GUEST)
    assert client.rest() == b""


def test_cleanup_host_closes_the_listener_and_connections(driver, console):
    client = console()
    port = client.sock.getpeername()[1]
    assert client.connect() == b"HTTP/1.1 200 OK\r\n"
    assert client.read(12) == b"RFB 003.008\n"
    assert _console_threads()
    driver.cleanup_host("h1")
    assert client.rest() == b""
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=10)
    assert _console_threads() == []


def test_a_console_asked_for_after_cleanup_host_is_served_again(driver, console):
    first = driver.get_vnc_console(None, GUEST)
    driver.cleanup_host("h1")
    driver.init_host("h1")
    client = console()
    assert client.sock.getpeername()[1] != first.port
    assert client.connect() == b"HTTP/1.1 200 OK\r\n"
