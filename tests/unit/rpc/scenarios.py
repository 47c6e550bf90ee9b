"""What every transport must do, through RPCClient and RPCServer: one set of tests that
test_inprocess.py and test_amqp.py run over their own transport (a subclass of
RPCScenarios providing the `transport` fixture)."""

from __future__ import annotations

import dataclasses
import datetime
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from novalite import context, exception
from novalite.objects import base
from novalite.rpc import MessagingTimeout, RemoteError, RPCClient, RPCServer, Target
from novalite.rpc.transport import Transport
from tests.waiting import wait_for

CTX = context.get_admin_context("req-rpc-scenarios")


@base.register
class RPCTestGadget(base.NovaliteObject):
    VERSION = "1.0"
    name: str = ""
    size: int = 0
    made_at: datetime.datetime | None = None


class Recorder:
    """An endpoint that remembers what it was asked, so tests can see who got what."""

    target = Target(version="1.0")

    def __init__(self, name: str) -> None:
        self.name = name
        self.received: list[tuple[str, Any]] = []
        self._lock = threading.Lock()

    def _note(self, method: str, value: Any = None) -> None:
        with self._lock:
            self.received.append((method, value))

    def values(self, method: str) -> list[Any]:
        with self._lock:
            return [value for name, value in self.received if name == method]

    def echo(self, ctx, value):
        self._note("echo", value)
        return value

    def whoami(self, ctx):
        self._note("whoami")
        return self.name

    def note(self, ctx, value):
        self._note("note", value)

    def missing(self, ctx, instance_id):
        raise exception.InstanceNotFound(instance_id=instance_id)

    def crash(self, ctx):
        raise ValueError("boom")

    def grow(self, ctx, gadget):
        return dataclasses.replace(gadget, size=gadget.size + 1)


class Harness:
    """Servers and clients on one fresh topic; remembers the names it used for cleanup."""

    def __init__(self, transport: Transport) -> None:
        self.transport = transport
        self.topic = f"test_{uuid.uuid4().hex[:12]}"
        self.server_names: set[str] = set()
        self._servers: list[RPCServer] = []

    def server(self, name: str) -> Recorder:
        endpoint = Recorder(name)
        server = RPCServer(self.transport, Target(topic=self.topic, server=name), [endpoint],
                           executor_size=8)
        server.start()
        self.server_names.add(name)
        self._servers.append(server)
        return endpoint

    def stop_servers(self) -> None:
        for server in self._servers:
            server.stop()
            server.wait(5)
        self._servers.clear()

    def client(self, timeout: float = 5.0, **prepare: Any) -> RPCClient:
        if prepare.get("server"):
            self.server_names.add(prepare["server"])
        client = RPCClient(self.transport, Target(topic=self.topic), timeout=timeout)
        return client.prepare(**prepare) if prepare else client


class RPCScenarios:
    """The shared tests. Subclasses provide a `transport` fixture and may override
    `forget` to remove what the harness left on a broker."""

    @pytest.fixture
    def rpc(self, transport):
        harness = Harness(transport)
        yield harness
        harness.stop_servers()
        self.forget(harness)

    def forget(self, harness: Harness) -> None:
        """Remove broker state the test created (nothing to do without a broker)."""

    def test_a_call_returns_the_result(self, rpc):
        rpc.server("a")
        value = {"list": [1, "two", None], "nested": {"ok": True}}
        assert rpc.client().call(CTX, "echo", value=value) == value

    def test_a_cast_reaches_a_server(self, rpc):
        endpoint = rpc.server("a")
        assert rpc.client().cast(CTX, "note", value=7) is None
        wait_for(lambda: endpoint.values("note") == [7], what="the cast")

    def test_calls_on_a_topic_are_shared_between_its_servers(self, rpc):
        rpc.server("a"), rpc.server("b")
        client = rpc.client()
        answers = [client.call(CTX, "whoami") for _ in range(10)]
        assert set(answers) == {"a", "b"}

    def test_a_call_prepared_for_a_server_reaches_only_that_server(self, rpc):
        a, b = rpc.server("a"), rpc.server("b")
        client = rpc.client(server="b")
        assert [client.call(CTX, "whoami") for _ in range(6)] == ["b"] * 6
        assert a.received == [] and len(b.received) == 6

    def test_a_fanout_reaches_every_server(self, rpc):
        endpoints = [rpc.server(name) for name in ("a", "b", "c")]
        rpc.client(fanout=True).cast(CTX, "note", value="all")
        wait_for(lambda: all(e.values("note") == ["all"] for e in endpoints),
                   what="the fanout reaching a, b and c")

    def test_a_novalite_exception_is_raised_again_by_class(self, rpc):
        rpc.server("a")
        with pytest.raises(exception.InstanceNotFound, match="Instance x could not be found"):
            rpc.client().call(CTX, "missing", instance_id="x")

    def test_another_exception_arrives_as_remote_error(self, rpc):
        rpc.server("a")
        with pytest.raises(RemoteError) as raised:
            rpc.client().call(CTX, "crash")
        assert raised.value.exc_type == "ValueError" and raised.value.value == "boom"

    def test_a_call_nobody_listens_to_times_out(self, rpc):
        started = time.monotonic()
        with pytest.raises(MessagingTimeout, match=r"whoami on topic .* server ghost"):
            rpc.client(timeout=0.5, server="ghost").call(CTX, "whoami")
        assert 0.4 <= time.monotonic() - started < 3

    def test_a_cast_sent_before_the_server_starts_is_delivered_when_it_starts(self, rpc):
        rpc.client().cast(CTX, "note", value="early")
        endpoint = rpc.server("late")
        wait_for(lambda: endpoint.values("note") == ["early"], what="the early cast")

    def test_casts_sent_while_no_server_runs_wait_for_the_next_one(self, rpc):
        rpc.server("first")
        rpc.stop_servers()
        rpc.client().cast(CTX, "note", value="between")
        endpoint = rpc.server("second")
        wait_for(lambda: endpoint.values("note") == ["between"], what="the waiting cast")

    def test_concurrent_calls_each_get_their_own_reply(self, rpc):
        rpc.server("a"), rpc.server("b")
        client = rpc.client()

        def caller(thread: int) -> list[Any]:
            return [client.call(CTX, "echo", value=[thread, i]) for i in range(25)]

        with ThreadPoolExecutor(8) as pool:
            results = list(pool.map(caller, range(8)))
        assert results == [[[t, i] for i in range(25)] for t in range(8)]

    def test_objects_round_trip(self, rpc):
        rpc.server("a")
        made_at = datetime.datetime(2026, 1, 2, 3, 4, 5)
        grown = rpc.client().call(CTX, "grow", gadget=RPCTestGadget("g", 1, made_at))
        assert grown == RPCTestGadget("g", 2, made_at)
