"""The receiver's side of RPC: dispatch messages to endpoint methods on a thread pool.

An endpoint is any object with a `target` (namespace and version) whose public methods
take `(context, **kwargs)`. A message goes to the endpoint whose namespace matches and
whose version is compatible (same major, minor at least the message's).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from novalite import context as ctx_mod
from novalite import exception
from novalite.objects import codec
from novalite.rpc import serializer
from novalite.rpc.errors import NoSuchMethod, UnsupportedVersion
from novalite.rpc.target import Target, version_is_compatible
from novalite.rpc.transport import Listener, Message, Reply, Transport

LOG = logging.getLogger(__name__)


class Dispatcher:
    def __init__(self, endpoints: list[Any]) -> None:
        self.endpoints = endpoints

    def _find(self, namespace: str | None, version: str, method: str) -> Any:
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
        self._listener: Listener | None = None
        self._in_flight = 0
        self._idle = threading.Condition()
        self._room_watchers: list[Callable[[], None]] = []

    def start(self) -> None:
        self._listener = self.transport.listen(self.target, self)

    def deliver(self, message: Message, reply: Reply | None) -> None:
        self._track(+1)
        self.executor.submit(self._run, message, reply)

    def run_inline(self, message: Message) -> Message:
        self._track(+1)
        return self._process(message, is_call=True)

    def _run(self, message: Message, reply: Reply | None) -> None:
        body = self._process(message, is_call=reply is not None)
        if reply:
            reply(body)

    def _process(self, message: Message, is_call: bool) -> Message:
        ctx = ctx_mod.RequestContext.from_dict(message.get("context") or {})
        token = ctx.activate()
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
            self._track(-1)

    def _track(self, delta: int) -> None:
        with self._idle:
            self._in_flight += delta
            if not self._in_flight:
                self._idle.notify_all()
        if delta < 0 and self._in_flight <= self.executor_size:
            for wake in self._room_watchers:  # the queue behind the threads ran dry
                wake()

    def room(self) -> int:
        """As many messages as the executor has threads, and as many again queued behind
        them: enough that a refill comes before the threads run dry, and that a transport
        hands them over in batches rather than one at a time."""
        return max(0, 2 * self.executor_size - self._in_flight)

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
