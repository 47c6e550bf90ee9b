"""The RabbitMQ transport against the shared RPC scenarios, on the real broker.

Every test gets its own control exchange and topic, and deletes the durable queues and
exchanges it created, so runs neither see nor leave each other's messages.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import uuid

import pytest

from novalite.rpc import RPCClient, RPCServer, redelivered
from novalite.rpc.amqp import AMQPTransport
from novalite.rpc.amqp_connection import close_quietly, connect, mask_url, to_kombu_url
from novalite.rpc.errors import MessagingTimeout, TransportUnavailable
from novalite.rpc.target import Target
from novalite.rpc.transport import get_transport
from tests.unit.rpc.scenarios import CTX, Harness, RPCScenarios
from tests.waiting import wait_for

URL = "rabbit://guest:guest@127.0.0.1:5672/"


def _rabbitmq_reachable() -> bool:
    try:
        socket.create_connection(("127.0.0.1", 5672), timeout=1).close()
        return True
    except OSError:
        return False


if not _rabbitmq_reachable():
    if os.environ.get("CI") == "true":  # CI provides the broker: its absence is a failure
        pytest.fail("RabbitMQ not reachable at 127.0.0.1:5672 under CI=true", pytrace=False)
    pytest.skip("RabbitMQ not reachable at 127.0.0.1:5672: start it with "
                "'rabbitmq-server -detached'", allow_module_level=True)


@pytest.fixture
def transport(conf):
    conf.set_override("control_exchange", f"test_{uuid.uuid4().hex[:12]}")
    transport = AMQPTransport(URL)
    yield transport
    transport.cleanup()


def _delete(queues: list[str], exchanges: list[str]) -> None:
    conn = connect(URL, threading.Event(), deadline=time.monotonic() + 5)
    try:
        channel = conn.channel()
        for queue in queues:
            channel.queue_delete(queue)
        for exchange in exchanges:
            channel.exchange_delete(exchange)
    finally:
        close_quietly(conn, graceful=True)


class TestAMQP(RPCScenarios):
    @pytest.fixture
    def transport(self, transport):
        return transport

    def forget(self, harness: Harness) -> None:
        topic = harness.topic
        _delete([topic, *(f"{topic}.{name}" for name in harness.server_names)],
                [harness.transport.exchange, f"{topic}_fanout"])

    def test_calls_work_again_after_the_connections_break(self, rpc):
        endpoint = rpc.server("a")
        client = rpc.client(timeout=1)
        assert client.call(CTX, "echo", value="before") == "before"

        # the listener's, the reply reader's, and a publisher's once the server's reply
        # gave it back to the pool (just after the caller had the answer)
        broken = wait_for(lambda: len(found := rpc.transport._connections()) >= 3 and found,
                          what="three connections")
        for conn in broken:  # what a network failure or a broker restart looks like
            conn.connection.sock.shutdown(socket.SHUT_RDWR)

        # The listener and the reply reader reconnect by themselves; publishers on next use.
        wait_for(lambda: len(set(rpc.transport._connections()) - set(broken)) >= 2,
                   what="the consumers reconnecting")
        assert [client.call(CTX, "echo", value=i) for i in range(5)] == list(range(5))
        client.cast(CTX, "note", value="cast after")
        wait_for(lambda: endpoint.values("note") == ["cast after"], what="the cast")
        assert not set(broken) & set(rpc.transport._connections())


def test_get_transport_returns_the_amqp_transport_for_rabbit_urls(conf):
    transport = get_transport(URL)
    assert isinstance(transport, AMQPTransport) and transport.exchange == "novalite"


def test_urls_are_translated_for_kombu_and_masked_for_logs():
    assert to_kombu_url("rabbit://u:p@h:5672/vh") == "amqp://u:p@h:5672/vh"
    assert mask_url("rabbit://u:secret@h:5672/") == "rabbit://u:****@h:5672/"
    assert mask_url("rabbit://h:5672/") == "rabbit://h:5672/"


def test_an_unreachable_broker_is_retried_then_reported(conf, caplog):
    conf.set_override("rpc_response_timeout", 1)
    transport = AMQPTransport("rabbit://guest:secret@127.0.0.1:1/")
    caplog.set_level(logging.ERROR, logger="novalite.rpc.amqp_connection")
    started = time.monotonic()
    listener = transport.listen(Target(topic="nowhere", server="s"),
                                handler=RPCServer(transport, Target(topic="nowhere"), []))
    assert time.monotonic() - started < 3  # a service starting before the broker goes on
    with pytest.raises(TransportUnavailable) as raised:
        transport.send(Target(topic="nowhere"), {"method": "m"}, wait_for_reply=False)
    assert time.monotonic() - started < 5
    message = str(raised.value)
    assert "rabbit://guest:****@127.0.0.1:1/" in message and "RabbitMQ is running" in message
    assert "secret" not in message
    assert "AMQP server on 127.0.0.1:1 is unreachable" in caplog.text
    assert "Trying again in 1 seconds" in caplog.text
    listener.stop()
    transport.cleanup()
    transport.cleanup()  # idempotent
    with pytest.raises(TransportUnavailable, match="cleaned up"):
        transport.send(Target(topic="nowhere"), {"method": "m"}, wait_for_reply=True)


class _Gate:
    """An endpoint whose `hold` casts wait until the test opens the gate."""

    target = Target(version="1.0")

    def __init__(self) -> None:
        self.gate = threading.Event()
        self.held: list[int] = []

    def hold(self, ctx, value):
        self.held.append(value)
        self.gate.wait(30)


def test_a_backlog_a_busy_server_holds_goes_to_another_when_it_stops(transport):
    """A server takes no more than its executor can run: what it holds beyond that is
    unacked, and goes back to the queue (to the other server here, or to a restarted
    one) when it stops or dies, instead of dying with it."""
    topic = f"test_{uuid.uuid4().hex[:12]}"
    busy, idle = _Gate(), _Gate()
    idle.gate.set()
    servers = [RPCServer(transport, Target(topic=topic, server=name), [endpoint],
                         executor_size=1) for name, endpoint in (("a", busy), ("b", idle))]
    servers[0].start()
    client = RPCClient(transport, Target(topic=topic), timeout=5)
    try:
        client.cast(CTX, "hold", value=0)
        wait_for(lambda: busy.held == [0], what="the busy server running its first cast")
        for value in range(1, 6):  # its executor's thread and queue take 0 and 1
            client.cast(CTX, "hold", value=value)
        consumer = servers[0]._listener.consumer  # type: ignore[union-attr]
        wait_for(lambda: len(consumer._batch) == 4, what="the four casts held back")
        assert busy.held == [0]
        servers[1].start()
        servers[0].stop()  # what it held, unacked, goes back to the queue
        wait_for(lambda: sorted(idle.held) == [2, 3, 4, 5], what="the backlog moving on")
    finally:
        busy.gate.set()
        for server in servers:
            server.stop()
            server.wait(5)
        _delete([topic, f"{topic}.a", f"{topic}.b"], [transport.exchange, f"{topic}_fanout"])


class _Answers:
    """Answers once let through; records whether each run was told it may be a rerun."""

    def __init__(self) -> None:
        self.gate = threading.Event()
        self.reruns: list[bool] = []

    @property
    def runs(self) -> int:
        return len(self.reruns)

    def answer(self, ctx, value):
        self.reruns.append(redelivered())
        self.gate.wait(30)
        return value


@pytest.mark.parametrize("idempotent", [True, False])
def test_a_call_whose_reply_queue_went_with_its_connection_is_sent_again_if_it_may(
        transport, idempotent):
    """The caller's reply queue is exclusive: it goes with the connection, and a reply
    sent to it then is lost. A call the receiver may run again is sent again on the new
    queue, run as a redelivery (its method checks what it did before) and answered; any
    other is waited out (MessagingTimeout), as before."""
    topic = f"test_{uuid.uuid4().hex[:12]}"
    endpoint = _Answers()
    server = RPCServer(transport, Target(topic=topic), [endpoint])
    server.start()
    client = RPCClient(transport, Target(topic=topic), timeout=8,
                       idempotent=frozenset({"answer"} if idempotent else ()))
    outcome: list[object] = []
    caller = threading.Thread(target=lambda: outcome.append(
        _outcome(lambda: client.call(CTX, "answer", value="kept"))))
    try:
        caller.start()
        wait_for(lambda: endpoint.runs == 1, what="the server running the call")
        replies = transport._replies
        lost = replies.queue
        replies.conn.connection.sock.shutdown(socket.SHUT_RDWR)
        wait_for(lambda: replies.ready.is_set() and replies.queue != lost,
                 what="the reply consumer on a new queue")
        endpoint.gate.set()  # its reply goes to the queue that is gone
        caller.join(20)
        if idempotent:
            assert outcome == ["kept"] and endpoint.reruns == [False, True]
        else:
            assert outcome == [MessagingTimeout] and endpoint.runs == 1
    finally:
        endpoint.gate.set()
        server.stop()
        server.wait(5)
        _delete([topic], [transport.exchange, f"{topic}_fanout"])


def _outcome(call):
    try:
        return call()
    except MessagingTimeout:
        return MessagingTimeout
