"""A broker outage, made with a TCP relay this test owns in front of the shared RabbitMQ
(which is never stopped): a cast given a timeout fails within it rather than after
rpc_response_timeout, and works again once the broker is back."""

from __future__ import annotations

import time

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


def test_a_cast_with_a_timeout_fails_fast_during_an_outage_and_works_after(
        conf, relay, rabbit_vhost):
    conf.set_override("rpc_response_timeout", 60)
    vhost = rabbit_vhost.rsplit("/", 1)[1]
    transport = AMQPTransport(f"rabbit://guest:guest@127.0.0.1:{relay.port}/{vhost}")
    client = RPCClient(transport, Target(topic="outage", version="1.0"), timeout=2)
    try:
        client.cast(CTX, "note", value="before")
        relay.cut()
        started = time.monotonic()
        with pytest.raises(MessagingError):
            client.cast(CTX, "note", value="during")
        assert time.monotonic() - started < 10  # not rpc_response_timeout's 60 s
        relay.restore()
        client.cast(CTX, "note", value="after")
    finally:
        transport.cleanup()
