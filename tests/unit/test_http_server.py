"""Serving: the heap start-up made is left out of the collector's full passes, and an idle
client connection stays open as long as [wsgi] client_socket_timeout says."""

from __future__ import annotations

import gc
import socket
import time

from novalite import http_server
from novalite.conf import CONF


async def _empty(scope, receive, send):
    await send({"type": "http.response.start", "status": 204, "headers": []})
    await send({"type": "http.response.body", "body": b""})


def test_freeze_heap_moves_what_is_alive_out_of_collection():
    try:
        http_server.freeze_heap()
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()


def test_an_idle_connection_outlives_a_client_polling_every_few_seconds(conf):
    assert http_server.make_server("127.0.0.1", 0, _empty).config.timeout_keep_alive == 900
    CONF.set_override("client_socket_timeout", 0, group="wsgi")
    assert http_server.make_server("127.0.0.1", 0, _empty).config.timeout_keep_alive > 86400


def test_an_idle_connection_is_closed_after_the_client_socket_timeout(conf):
    CONF.set_override("client_socket_timeout", 1, group="wsgi")
    server = http_server.make_server("127.0.0.1", 0, _empty)
    thread = http_server.start_in_thread(server)
    try:
        with socket.create_connection(("127.0.0.1", http_server.bound_port(server))) as sock:
            sock.sendall(b"GET / HTTP/1.1\r\nHost: novalite\r\n\r\n")
            assert sock.recv(4096).startswith(b"HTTP/1.1 204")
            idle_since = time.monotonic()
            sock.settimeout(10)
            assert sock.recv(4096) == b""  # the server closed it
            assert time.monotonic() - idle_since >= 0.9
    finally:
        http_server.stop(server, thread)
