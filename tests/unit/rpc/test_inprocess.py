"""The in-process transport against the shared RPC scenarios (no broker, fast)."""

from __future__ import annotations

import threading

import pytest

from novalite.rpc import RPCClient, RPCServer, Target
from novalite.rpc.inprocess import InProcessTransport
from novalite.rpc.transport import get_transport
from tests.unit.rpc.scenarios import CTX, RPCScenarios


class TestInProcess(RPCScenarios):
    @pytest.fixture
    def transport(self):
        transport = InProcessTransport()
        yield transport
        transport.cleanup()


def test_get_transport_returns_one_inprocess_transport_per_url(conf):
    transport = get_transport("inprocess://")
    assert isinstance(transport, InProcessTransport)
    assert get_transport("inprocess://") is transport


class Relay:
    """Casts `hops` more times down a chain of servers, each hop after a short pause (the
    pause makes a join that returns early see an unfinished chain)."""

    target = Target(version="1.0")

    def __init__(self, transport: InProcessTransport, topic: str, done: list[int]) -> None:
        self.client = RPCClient(transport, Target(topic=topic))
        self.done = done

    def relay(self, ctx, hops):
        threading.Event().wait(0.01)
        if hops:
            self.client.cast(ctx, "relay", hops=hops - 1)
        else:
            self.done.append(1)


def _servers(transport: InProcessTransport, topic: str, done: list[int]) -> list[RPCServer]:
    servers = [RPCServer(transport, Target(topic=topic, server=f"s{i}"),
                         [Relay(transport, topic, done)]) for i in range(3)]
    for server in servers:
        server.start()
    return servers


def test_join_returns_once_a_chain_of_casts_has_run_to_its_end():
    transport, done = InProcessTransport(), []
    servers = _servers(transport, "chain", done)
    RPCClient(transport, Target(topic="chain")).cast(CTX, "relay", hops=6)
    transport.join(timeout=10)
    assert done == [1] and all(s.in_flight == 0 for s in servers)
    transport.cleanup()


def test_join_on_an_idle_transport_returns_at_once():
    transport = InProcessTransport()
    _servers(transport, "idle", [])
    transport.join(timeout=0)
    transport.cleanup()


def test_join_times_out_while_a_cast_waits_for_a_server_that_never_starts():
    transport = InProcessTransport()
    RPCClient(transport, Target(topic="nobody", server="h1")).cast(CTX, "relay", hops=0)
    with pytest.raises(TimeoutError, match="wait for a listener on nobody.h1"):
        transport.join(timeout=0.05)
    transport.cleanup()
