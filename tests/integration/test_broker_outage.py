"""A broker outage, made with a TCP relay this test owns in front of the shared RabbitMQ
(which is never stopped): a cast given a timeout fails within it rather than after
rpc_response_timeout, and works again once the broker is back; a cast the broker did not
acknowledge is not reported sent."""

from __future__ import annotations

import json
import time

import amqp
import pytest

from novalite.rpc.amqp import AMQPTransport
from novalite.rpc.client import RPCClient
from novalite.rpc.errors import MessagingError
from novalite.rpc.target import Target
from tests.relay import Relay
from tests.unit.rpc.scenarios import CTX


@pytest.fixture
def relay(rabbit_vhost):
    relay = Relay(5672)
    yield relay
    relay.cut()


@pytest.fixture
def client(conf, relay, rabbit_vhost):
    """An RPC client whose casts go through the relay and give up after 2 s."""
    conf.set_override("rpc_response_timeout", 60)
    transport = AMQPTransport(f"rabbit://guest:guest@127.0.0.1:{relay.port}/"
                              f"{_vhost(rabbit_vhost)}")
    yield RPCClient(transport, Target(topic="outage", version="1.0"), timeout=2)
    transport.cleanup()


def _vhost(url: str) -> str:
    return url.rsplit("/", 1)[1]


def _fails_fast(client: RPCClient, value: str) -> None:
    started = time.monotonic()
    with pytest.raises(MessagingError):
        client.cast(CTX, "note", value=value)
    assert time.monotonic() - started < 10  # not rpc_response_timeout's 60 s


def test_a_cast_with_a_timeout_fails_fast_during_an_outage_and_works_after(client, relay):
    client.cast(CTX, "note", value="before")
    relay.cut()
    _fails_fast(client, "during")
    relay.restore()
    client.cast(CTX, "note", value="after")


def _queued(vhost: str, queue: str) -> list[str]:
    """The `value` argument of each message waiting in `queue`, read straight from the
    broker (not through the relay)."""
    conn = amqp.Connection("127.0.0.1:5672", userid="guest", password="guest",
                           virtual_host=vhost)
    conn.connect()
    try:
        channel, values = conn.channel(), []
        while (msg := channel.basic_get(queue, no_ack=True)) is not None:
            values.append(json.loads(msg.body)["args"]["value"])
        return values
    finally:
        conn.close()


def test_a_cast_returns_only_once_the_broker_holds_it(client, relay, rabbit_vhost):
    """What a sender writes just before its connection dies can vanish with it (here the
    link loses everything without closing). A cast that returned must be in its queue,
    so one the broker never acknowledged fails instead: the API then refuses the build
    rather than answer 202 for a server no conductor will ever hear of."""
    client.cast(CTX, "note", value="before")
    relay.drop()
    _fails_fast(client, "lost")
    relay.cut()
    relay.restore()
    client.cast(CTX, "note", value="after")
    assert _queued(_vhost(rabbit_vhost), "outage") == ["before", "after"]
