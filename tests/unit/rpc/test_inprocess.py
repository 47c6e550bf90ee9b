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


class Gate:
    """Each cast runs until released; `recast` casts to its own server once more
    (from inside a handler) and records that the cast returned."""

    target = Target(version="1.0")

    def __init__(self, transport: InProcessTransport) -> None:
        self.client = RPCClient(transport, Target(topic="gated", server="s"))
        self.release = threading.Event()
        self.started = threading.Semaphore(0)
        self.recast_returned = threading.Event()

    def hold(self, ctx):
        self.started.release()
        self.release.wait(10)

    def recast(self, ctx):
        self.client.cast(ctx, "hold")
        self.recast_returned.set()
        self.release.wait(10)


def _gated(transport: InProcessTransport) -> tuple[Gate, RPCServer]:
    gate = Gate(transport)
    server = RPCServer(transport, Target(topic="gated", server="s"), [gate], executor_size=1)
    server.start()
    return gate, server


def test_a_cast_from_outside_waits_until_the_server_has_a_thread_free():
    """Back-pressure: a storm of API requests cannot queue work faster than it runs."""
    transport = InProcessTransport()
    gate, server = _gated(transport)
    gate.client.cast(CTX, "hold")
    assert gate.started.acquire(timeout=10)
    second = threading.Thread(target=gate.client.cast, args=(CTX, "hold"))
    second.start()
    second.join(0.2)
    assert second.is_alive() and server.in_flight == 1  # waiting, not queued
    gate.release.set()
    second.join(10)
    assert not second.is_alive()
    transport.join(timeout=10)
    transport.cleanup()


def test_a_cast_from_a_handler_never_waits():
    """Services casting to each other (here a server to itself) cannot block each other."""
    transport = InProcessTransport()
    gate, server = _gated(transport)
    gate.client.cast(CTX, "recast")
    assert gate.recast_returned.wait(10)
    assert server.in_flight == 2  # the handler still holds the only thread
    gate.release.set()
    transport.join(timeout=10)
    transport.cleanup()
