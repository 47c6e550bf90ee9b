import socket

import pytest

from novalite import exception
from novalite.virt.qemu import consoles


@pytest.fixture
def taken():
    """A port something else listens on."""
    with socket.create_server(("127.0.0.1", 0)) as holder:
        yield holder.getsockname()[1]


def _serial(conf, port_range: str) -> None:
    conf.set_override("enabled", True, group="serial_console")
    conf.set_override("port_range", port_range, group="serial_console")


def test_the_serial_listener_takes_the_first_free_port_of_the_range(conf, taken):
    _serial(conf, f"{taken}:{taken + 50}")
    with consoles.serial_listener() as first, consoles.serial_listener() as second:
        assert first is not None and second is not None
        ports = [first.getsockname()[1], second.getsockname()[1]]
        # held from the moment it is found free: the next launch cannot get it too
        assert taken < ports[0] < ports[1] <= taken + 50
        assert first.getsockname()[0] == "127.0.0.1"
        with socket.create_connection(("127.0.0.1", ports[0]), timeout=5):
            pass  # listening already, for QEMU to accept on
    with socket.create_server(("127.0.0.1", ports[0])):  # and let go once QEMU has it
        pass


def test_a_used_up_range_names_the_address(conf, taken):
    _serial(conf, f"{taken}:{taken}")  # both ends are in the range
    with pytest.raises(exception.SocketPortRangeExhaustedException) as caught, \
            consoles.serial_listener():
        pass
    assert "127.0.0.1" in caught.value.format_message()


def test_an_address_not_of_this_host_is_no_used_up_range(conf):
    _serial(conf, "10000:20000")
    conf.set_override("proxyclient_address", "192.0.2.1", group="serial_console")
    with pytest.raises(OSError, match="assign requested address"), \
            consoles.serial_listener():
        pass


def test_without_serial_consoles_there_is_no_listener(conf):
    with consoles.serial_listener() as listener:
        assert listener is None


def test_vnc_listens_where_configured_while_enabled(conf):
    conf.set_override("server_listen", "192.0.2.5", group="vnc")
    assert consoles.vnc_listen() == "192.0.2.5"
    conf.set_override("enabled", False, group="vnc")
    assert consoles.vnc_listen() is None


class AnsweringGuest:
    """A running QEMU's answers to the console queries."""

    def __init__(self, **answers: object) -> None:
        self.answers = answers

    def qmp(self, command: str) -> object:
        return self.answers[command.replace("-", "_")]


MONITOR = {"frontend-open": True, "filename": "unix:qmp.sock,server=on",
           "label": "compat_monitor0"}


def test_the_vnc_port_is_the_one_qemu_bound():
    guest = AnsweringGuest(query_vnc={"enabled": True, "auth": "none", "family": "ipv4",
                                      "clients": [], "service": "5901", "host": "127.0.0.1"})
    assert consoles.vnc_port(guest) == 5901
    assert consoles.vnc_port(AnsweringGuest(query_vnc={"enabled": False})) is None


@pytest.mark.parametrize("filename, port", [
    ("disconnected:tcp:127.0.0.1:10000,server=on", 10000),
    ("tcp:127.0.0.1:10001,server=on <-> 127.0.0.1:37112", 10001),  # a client is on it
    ("disconnected:tcp:[::1]:10002,server=on", 10002),
    ("file", None),  # launched before serial consoles were enabled
])
def test_the_serial_port_is_read_from_the_first_serial_ports_chardev(filename, port):
    chardevs = [MONITOR, {"frontend-open": True, "filename": filename, "label": "console0"}]
    assert consoles.serial_port(AnsweringGuest(query_chardev=chardevs)) == port
