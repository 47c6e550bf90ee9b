"""The receiver's side of RPC: dispatch messages to endpoint methods on a thread pool.

An endpoint is any object with a `target` (namespace and version) whose public methods
take `(context, **kwargs)`. A message goes to the endpoint whose namespace matches and
whose version is compatible (same major, minor at least the message's).

A broker's transport acknowledges a message when the server takes it (at most once, as
oslo.messaging), unless its method is marked `@ack_when_done`: then only once it was
handled, so that a server killed with it taken loses nothing (the broker hands it to
another, or to its successor). Such a method runs at least once and must be idempotent:
`redelivered()` tells it the message may have been handled (in part) before.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextvars import ContextVar
from typing import Any, TypeVar

from novalite import context as ctx_mod
from novalite import exception
from novalite.locks import KeyedLocks
from novalite.objects import codec
from novalite.rpc import serializer, wire
from novalite.rpc.errors import NoSuchMethod, UnsupportedVersion
from novalite.rpc.target import Target, version_is_compatible
from novalite.rpc.transport import Listener, Message, Reply, Transport

LOG = logging.getLogger(__name__)
F = TypeVar("F", bound=Callable[..., Any])

_redelivered: ContextVar[bool] = ContextVar("rpc_redelivered", default=False)
_handling: ContextVar[bool] = ContextVar("rpc_handling", default=False)


def ack_when_done(method: F) -> F:
    """Mark an endpoint method whose message is acknowledged once it was handled (it
    returned or raised), not when taken: what it starts survives a kill -9 of its server.
    The method must find its own work already done (see `redelivered`)."""
    method.ack_when_done = True  # type: ignore[attr-defined]
    return method


def redelivered() -> bool:
    """Whether the message being handled may have been handled before, in part or in
    full: the broker delivered it again after the server that took it died or lost its
    connection. Duplicates without the flag exist too (a publish retried after a lost
    connection), so an idempotent handler checks its progress anyway; the flag says
    when the costlier checks (what placement holds already) are worth making."""
    return _redelivered.get()


def handling() -> bool:
    """Whether this thread is running an RPC handler (in an executor, or inline for a
    call): what it sends goes between services, never from outside them."""
    return _handling.get()


class Dispatcher:
    def __init__(self, endpoints: list[Any]) -> None:
        self.endpoints = endpoints
        # (namespace, version, method) -> the endpoint method found for it: the search,
        # with its getattrs on every endpoint, was 1% of a boot storm's samples
        self._found: dict[tuple[str | None, str, str], Any] = {}

    def _find(self, namespace: str | None, version: str, method: str) -> Any:
        key = (namespace, version, method)
        found = self._found.get(key)
        if found is None:
            found = self._found[key] = self._search(namespace, version, method)
        return found

    def _search(self, namespace: str | None, version: str, method: str) -> Any:
        candidates = [
            ep for ep in self.endpoints
            if getattr(ep, "target", Target()).namespace == namespace
            and callable(getattr(ep, method, None)) and not method.startswith("_")
        ]
        if not candidates:
            raise NoSuchMethod(f"Endpoint does not support RPC method {method}")
        for ep in candidates:
            if version_is_compatible(getattr(ep, "target", Target()).version, version):
                return getattr(ep, method)
        raise UnsupportedVersion(f"Endpoint does not support RPC version {version}. "
                                 f"Attempted method: {method}")

    def acks_late(self, message: Message) -> bool:
        """Whether the method `message` is for is marked @ack_when_done (a message for
        no method is not: it is answered at once with its error)."""
        try:
            method = self._find(message.get("namespace"), message.get("version", "1.0"),
                                message.get("method", ""))
        except (NoSuchMethod, UnsupportedVersion):
            return False
        return bool(getattr(method, "ack_when_done", False))

    def any_acks_late(self) -> bool:
        """Whether any endpoint method is marked (read on the classes: no property of
        an endpoint is evaluated)."""
        return any(getattr(getattr(type(ep), name), "ack_when_done", False)
                   for ep in self.endpoints for name in dir(type(ep))
                   if not name.startswith("_"))

    def dispatch(self, ctx: ctx_mod.RequestContext, message: Message) -> Any:
        method = self._find(message.get("namespace"), message.get("version", "1.0"),
                            message["method"])
        return method(ctx, **codec.deserialize(message.get("args") or {}))


class RPCServer:
    """Listens on `target` (topic + server) and runs each message on its own executor."""

    def __init__(
        self,
        transport: Transport,
        target: Target,
        endpoints: list[Any],
        executor_size: int = 64,
    ) -> None:
        self.transport = transport
        self.target = target
        self.dispatcher = Dispatcher(endpoints)
        self.executor = ThreadPoolExecutor(executor_size, thread_name_prefix=f"rpc-{target.topic}")
        self.executor_size = executor_size
        self._capacity = 2 * executor_size  # see room()
        self._listener: Listener | None = None
        self._in_flight = 0
        counting = threading.Lock()
        self._idle = threading.Condition(counting)
        self._room = threading.Condition(counting)  # see wait_for_room()
        self._room_watchers: list[Callable[[], None]] = []
        self._acks_late_any = self.dispatcher.any_acks_late()
        self._late_runs = KeyedLocks()  # by message: one run at a time of each

    def start(self) -> None:
        self._listener = self.transport.listen(self.target, self)

    def deliver(self, message: Message, reply: Reply | None,
                done: Callable[[], None] | None = None, redelivered: bool = False) -> None:
        self._track(+1)
        if done is None:
            self.executor.submit(self._run, message, reply, done, redelivered)
        else:
            self.executor.submit(self._run_once_at_a_time, message, reply, done, redelivered)

    def _run_once_at_a_time(self, message: Message, reply: Reply | None,
                            done: Callable[[], None], redelivered: bool) -> None:
        """A message acked late comes back when this server's connection is lost while
        it runs (the broker requeues what is unacked), and may be handed here again
        before the first run ended: the second run waits for the first, and then finds
        the work done, rather than racing it."""
        with self._late_runs(wire.identity(message)):
            self._run(message, reply, done, redelivered)

    def run_inline(self, message: Message) -> Message:
        self._track(+1)
        return self._process(message, is_call=True)

    def _run(self, message: Message, reply: Reply | None,
             done: Callable[[], None] | None = None, redelivered: bool = False) -> None:
        token = _redelivered.set(redelivered)
        try:
            body = self._process(message, is_call=reply is not None)
            if reply:
                reply(body)
        finally:
            _redelivered.reset(token)
            if done:
                done()

    def _process(self, message: Message, is_call: bool) -> Message:
        ctx = ctx_mod.RequestContext.from_dict(message.get("context") or {})
        token = ctx.activate()
        inside = _handling.set(True)
        started = time.perf_counter()
        outcome = "ok"
        try:
            result = self.dispatcher.dispatch(ctx, message)
            return {"result": codec.serialize(result), "failure": None}
        except Exception as exc:
            outcome = f"failed: {type(exc).__name__}: {exc}"
            expected = isinstance(exc, exception.NovaliteException)  # a domain outcome
            LOG.log(logging.INFO if expected else logging.ERROR, "RPC %s raised %s",
                    message.get("method"), type(exc).__name__, exc_info=not expected)
            return {"result": None, "failure": serializer.serialize_exception(exc)}
        finally:
            LOG.debug("RPC %s %s.%s v%s %s in %.1f ms", "call" if is_call else "cast",
                     self.target.topic, message.get("method"), message.get("version"),
                     outcome, (time.perf_counter() - started) * 1000)
            ctx_mod.reset(token)
            _handling.reset(inside)
            self._track(-1)

    def _track(self, delta: int) -> None:
        with self._idle:
            self._in_flight += delta
            if not self._in_flight:
                self._idle.notify_all()
            if delta < 0 and self._in_flight < self.executor_size:
                self._room.notify()
        if delta < 0 and self._in_flight <= self.executor_size:
            for wake in self._room_watchers:  # the queue behind the threads ran dry
                wake()

    def room(self) -> int:
        """As many messages as the executor has threads, and as many again queued behind
        them: enough that a refill comes before the threads run dry, and that a transport
        hands them over in batches rather than one at a time."""
        return max(0, self._capacity - self._in_flight)

    def wait_for_room(self, timeout: float) -> bool:
        """One waiter woken per thread freed: waking all of them at each message's end
        cost each POST of a storm half a millisecond of thread switches."""
        with self._room:
            return self._room.wait_for(lambda: self._in_flight < self.executor_size,
                                       timeout)

    def acks_late(self, message: Message) -> bool:
        return self.dispatcher.acks_late(message)

    def late_ack_capacity(self) -> int:
        return self._capacity if self._acks_late_any else 0

    def watch_room(self, wake: Callable[[], None]) -> None:
        self._room_watchers.append(wake)

    @property
    def in_flight(self) -> int:
        return self._in_flight

    def stop(self) -> None:
        """Stop taking new messages; in-flight ones go on (see wait)."""
        if self._listener:
            self._listener.stop()
            self._listener = None

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Wait until no message is in flight; False if some still were at `timeout`."""
        with self._idle:
            return self._idle.wait_for(lambda: not self._in_flight, timeout)

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for in-flight messages to finish; False if some were still running."""
        done = self.wait_idle(timeout)
        self.executor.shutdown(wait=done)
        return done
