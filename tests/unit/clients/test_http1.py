"""The all-in-one's own HTTP/1.1 client reads every way an HTTP/1.1 server may frame an
answer, keeps connections alive only while the server does, never reuses one the server
closed, and refuses what would corrupt a request rather than sending it."""

from __future__ import annotations

import socket
import threading

import pytest

from novalite.clients import http1


class Closing:
    def __init__(self, sent: bytes) -> None:
        self.sent = sent


class Scripted:
    """A server that answers each request it reads with the next scripted bytes (None:
    close the connection instead; Closing: send them, then close), recording the
    requests and connections."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.answers: list[bytes | Closing | None] = []
        self.requests: list[bytes] = []
        self.connections = 0
        self.closed = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        data = b""
        with conn:
            while True:
                while b"\r\n\r\n" not in data:
                    chunk = conn.recv(65536)
                    if not chunk:
                        return
                    data += chunk
                head, _, data = data.partition(b"\r\n\r\n")
                length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                               if line.lower().startswith(b"content-length:")), 0)
                while len(data) < length:
                    data += conn.recv(65536)
                self.requests.append(head + b"\r\n\r\n" + data[:length])
                data = data[length:]
                answer = self.answers.pop(0)
                if isinstance(answer, Closing):
                    conn.sendall(answer.sent)
                if answer is None or isinstance(answer, Closing):
                    self.closed.set()
                    return
                conn.sendall(answer)

    def close(self) -> None:
        self.listener.close()


@pytest.fixture
def server():
    scripted = Scripted()
    yield scripted
    scripted.close()


def pool(server: Scripted) -> http1.Pool:
    return http1.Pool("127.0.0.1", server.port, timeout=5)


OK = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-Openstack-Request-Id: req-1\r\n\r\nok"


def test_a_request_is_sent_as_asked_and_its_answer_read_by_length(server):
    server.answers = [OK]
    answer = pool(server).request("PUT", "/placement/x?a=1", b'{"a": 1}', {
        "Content-Type": "application/json", "X-Auth-Token": "t"})
    assert (answer.status, answer.body) == (200, b"ok")
    assert answer.headers["x-openstack-request-id"] == "req-1"
    assert answer.headers.get("X-OpenStack-Request-ID") == "req-1"
    assert "X-OPENSTACK-REQUEST-ID" in answer.headers
    assert server.requests == [
        b"PUT /placement/x?a=1 HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
        b"Content-Type: application/json\r\nX-Auth-Token: t\r\nContent-Length: 8\r\n\r\n"
        b'{"a": 1}' % server.port]


def test_a_post_without_a_body_says_so_and_a_get_sends_no_length(server):
    server.answers = [OK, OK]
    client = pool(server)
    client.request("POST", "/x", None, {})
    client.request("GET", "/x", None, {})
    assert b"Content-Length: 0\r\n" in server.requests[0]
    assert b"Content-Length" not in server.requests[1]


def test_one_connection_carries_many_requests(server):
    server.answers = [OK] * 5
    client = pool(server)
    for _ in range(5):
        assert client.request("GET", "/x", None, {}).body == b"ok"
    assert server.connections == 1


def test_chunked_answers_with_extensions_and_trailers_are_read_whole(server):
    server.answers = [
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        b"5;ext=1\r\nhello\r\n1\r\n \r\n5\r\nworld\r\n0\r\nX-Trailer: t\r\n\r\n", OK]
    client = pool(server)
    assert client.request("GET", "/x", None, {}).body == b"hello world"
    assert client.request("GET", "/x", None, {}).body == b"ok"  # framing kept
    assert server.connections == 1


def test_interim_answers_are_skipped(server):
    server.answers = [b"HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n" + OK]
    assert pool(server).request("GET", "/x", None, {}).status == 200


def test_no_body_is_read_for_a_head_a_204_or_a_304(server):
    server.answers = [b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n",
                      b"HTTP/1.1 204 No Content\r\n\r\n",
                      b"HTTP/1.1 304 Not Modified\r\n\r\n", OK]
    client = pool(server)
    assert client.request("HEAD", "/x", None, {}).body == b""
    assert client.request("DELETE", "/x", None, {}).status == 204
    assert client.request("GET", "/x", None, {}).status == 304
    assert client.request("GET", "/x", None, {}).body == b"ok"
    assert server.connections == 1


def test_an_answer_up_to_the_close_is_read_and_its_connection_not_reused(server):
    server.answers = [Closing(b"HTTP/1.0 200 OK\r\n\r\nall of it"), OK]
    client = pool(server)
    assert client.request("GET", "/x", None, {}).body == b"all of it"
    assert client.request("GET", "/x", None, {}).body == b"ok"
    assert server.connections == 2


def test_connection_close_is_honoured(server):
    server.answers = [b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok",
                      OK]
    client = pool(server)
    client.request("GET", "/x", None, {})
    client.request("GET", "/x", None, {})
    assert server.connections == 2


def test_a_connection_the_server_closed_while_idle_is_not_used(server):
    """As a server's keep-alive timeout does between two requests."""
    server.answers = [OK, None, OK]
    client = pool(server)
    client.request("GET", "/x", None, {})
    with pytest.raises(http1.ConnectionFailed, match="before answering"):
        client.request("GET", "/x", None, {})  # the server closes instead of answering
    assert server.closed.wait(5)
    assert client.request("GET", "/x", None, {}).body == b"ok"
    assert server.connections == 2


def test_an_idle_connection_closed_by_the_server_is_replaced_before_use(server):
    server.answers = [OK, OK]
    client = pool(server)
    client.request("GET", "/x", None, {})
    idle = client._idle[0]
    idle.sock.shutdown(socket.SHUT_RD)  # reads as the server's close: EOF
    assert idle.dropped()
    assert client.request("GET", "/x", None, {}).body == b"ok"
    assert server.connections == 2


@pytest.mark.parametrize("answer, error", [
    (b"SSH-2.0-OpenSSH\r\n\r\n", "not an HTTP/1 answer"),
    (b"HTTP/1.1 200 OK\r\nno colon\r\n\r\n", "malformed header"),
    (b"HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n", "malformed Content-Length"),
    (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "malformed chunk"),
    (Closing(b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort"), "mid-answer"),
    (Closing(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab"),
     "mid-answer"),
    (b"HTTP/1.1 200 OK\r\nX: " + b"x" * http1.MAX_HEAD, "too long"),
])
def test_an_answer_that_is_not_whole_http_fails_clearly(server, answer, error):
    server.answers = [answer]
    client = pool(server)
    with pytest.raises(http1.ConnectionFailed, match=error):
        client.request("GET", "/x", None, {})
    assert client._idle == []  # its connection is not used again


def test_a_refused_connection_fails_clearly():
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    with pytest.raises(http1.ConnectionFailed, match="cannot connect"):
        http1.Pool("127.0.0.1", port, timeout=5).request("GET", "/x", None, {})


@pytest.mark.parametrize("path, headers", [
    ("/x y", {}), ("/x\r\nHost: evil", {}), ("/x", {"X-A": "1\r\nX-B: 2"}),
    ("/x", {"X-A\n": "1"}), ("/x", {"X:A": "1"}),
])
def test_what_would_corrupt_a_request_is_refused_unsent(server, path, headers):
    with pytest.raises(ValueError):
        pool(server).request("GET", path, None, headers)
    assert server.connections == 0


def test_idle_connections_are_kept_up_to_the_pools_size(server):
    server.answers = [OK] * 3
    client = http1.Pool("127.0.0.1", server.port, timeout=5, maxsize=1)
    first, second = client._connection(), client._connection()
    client._give_back(first)
    client._give_back(second)
    assert client._idle == [first]
    assert second.sock.fileno() == -1
