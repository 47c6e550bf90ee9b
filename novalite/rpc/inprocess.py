"""In-process transport: services in one process exchange messages without a broker.

Messages still go through a JSON round trip, so whatever works here also works over
RabbitMQ (no shared mutable objects, no ORM rows). A call runs in the caller's own thread
(as a local function call would; it ends when the method returns), a cast or fanout on the
receiving server's executor: no polling, no queues in between (oslo.messaging's in-memory driver
polls every 50 ms, which is why it is not used).

A cast from outside the services (an API request, a periodic task) waits, for up to
ROOM_WAIT seconds, until the server it goes to has a thread free: the all-in-one's
back-pressure, as a broker's flow control holds a publisher. Without it a storm of POSTs
queues builds faster than they run, and each waits behind all the others. Casts from a
handler never wait, so services casting to each other cannot block one another.

A notification goes, in the notifying thread, to every in-process notification listener of
its routing key (each as a pool of its own would on a broker); with none it is dropped, as
nobody in this process could ever ask for it later.
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
from collections import defaultdict, deque
from collections.abc import Callable
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

from novalite.rpc import wire
from novalite.rpc.errors import MessagingTimeout
from novalite.rpc.server import handling
from novalite.rpc.target import Target
from novalite.rpc.transport import IncomingHandler, Listener, Message, Transport

LOG = logging.getLogger(__name__)
NotificationCallback = Callable[[Message], None]
ROOM_WAIT = 30.0  # beyond it a server is wedged rather than busy: the cast queues


def _copy(message: Message) -> Message:
    return wire.decode(wire.encode(message))


class _InProcessListener(Listener):
    def __init__(self, transport: InProcessTransport, target: Target, handler: IncomingHandler):
        self.transport = transport
        self.target = target
        self.handler = handler

    def stop(self) -> None:
        self.transport._unregister(self)


class _NotificationListener(Listener):
    def __init__(self, transport: InProcessTransport, topic: str,
                 callback: NotificationCallback) -> None:
        self.transport = transport
        self.topic = topic
        self.callback = callback

    def stop(self) -> None:
        with self.transport._lock:
            listeners = self.transport._notified.get(self.topic, [])
            if self in listeners:
                listeners.remove(self)


class InProcessTransport(Transport):
    keeps_messages = False

    def __init__(self, url: str = "inprocess://") -> None:
        super().__init__(url)
        self._lock = threading.Lock()
        self._by_topic: dict[str | None, list[_InProcessListener]] = defaultdict(list)
        # The same listeners by (topic, server): a cast to one of 10,000 computes finds
        # its own without a pass over the others.
        self._by_server: dict[tuple[str | None, str | None], list[_InProcessListener]] = \
            defaultdict(list)
        self._round_robin: dict[str | None, itertools.count[int]] = defaultdict(itertools.count)
        # Messages for targets nobody listens on yet, delivered when a listener appears.
        self._pending: dict[tuple[str | None, str | None], deque[Any]] = defaultdict(deque)
        # For join(): messages taken for delivery but not yet handed over, how many have
        # been handed over so far, and a condition signalled when either changes.
        self._delivering = 0
        self._delivered = 0
        self._changed = threading.Condition(self._lock)
        self._notified: dict[str, list[_NotificationListener]] = defaultdict(list)

    def listen(self, target: Target, handler: IncomingHandler) -> Listener:
        listener = _InProcessListener(self, target, handler)
        with self._lock:
            self._by_topic[target.topic].append(listener)
            self._by_server[target.topic, target.server].append(listener)
            backlog = [*self._pending.pop((target.topic, target.server), ()),
                       *self._pending.pop((target.topic, None), ())]
            self._delivering += 1
        try:
            now = time.monotonic()
            for message, reply, deadline in backlog:
                if deadline is None or deadline > now:  # a caller that gave up wants no reply
                    handler.deliver(message, reply)
        finally:
            self._handed_over()
        return listener

    def _handed_over(self) -> None:
        with self._changed:
            self._delivering -= 1
            self._delivered += 1
            self._changed.notify_all()

    def _unregister(self, listener: _InProcessListener) -> None:
        target = listener.target
        with self._lock:
            for listeners in (self._by_topic.get(target.topic, []),
                              self._by_server.get((target.topic, target.server), [])):
                if listener in listeners:
                    listeners.remove(listener)

    def _recipients(self, target: Target) -> list[_InProcessListener]:
        listeners = self._by_topic.get(target.topic, [])
        if target.fanout:
            return list(listeners)
        if target.server is not None:
            return self._by_server.get((target.topic, target.server), [])[:1]
        if not listeners:
            return []
        return [listeners[next(self._round_robin[target.topic]) % len(listeners)]]

    def send(
        self,
        target: Target,
        message: Message,
        wait_for_reply: bool,
        timeout: float | None = None,
        resend: bool = False,
    ) -> Message | None:
        message = _copy(message)
        future: Future | None = Future() if wait_for_reply else None
        reply = (lambda body: future.set_result(_copy(body))) if future else None
        with self._lock:
            recipients = self._recipients(target)
            if not recipients and not target.fanout:
                deadline = time.monotonic() + timeout if wait_for_reply and timeout else None
                self._pending[(target.topic, target.server)].append((message, reply, deadline))
            if future is None:
                self._delivering += 1
        if future is None:
            try:
                for listener in recipients:
                    if not handling():
                        listener.handler.wait_for_room(ROOM_WAIT)
                    listener.handler.deliver(message, None)
            finally:
                self._handed_over()
            return None
        if recipients:
            return _copy(recipients[0].handler.run_inline(message))
        try:
            return future.result(timeout)
        except FutureTimeout:
            raise MessagingTimeout(
                f"Timed out after {timeout}s waiting for a reply to "
                f"{message.get('method')} on topic {target.topic}"
                + (f" server {target.server}" if target.server else "")
            ) from None

    def listen_notifications(self, topic: str, callback: NotificationCallback) -> Listener:
        """Call `callback` with every notification published with routing key `topic`
        ('versioned_notifications.info'), in the publishing thread."""
        listener = _NotificationListener(self, topic, callback)
        with self._lock:
            self._notified[topic].append(listener)
        return listener

    def notify(self, topic: str, message: Message) -> None:
        with self._lock:
            listeners = list(self._notified.get(topic, ()))
        for listener in listeners:
            try:
                listener.callback(_copy(message))
            except Exception:  # a listener's bug must not reach the notifying operation
                LOG.exception("Notification listener on %s failed", topic)

    def join(self, timeout: float = 30.0) -> None:
        """Block until no message waits for a listener and every listening server has
        nothing in flight, so a chain of casts (api -> conductor -> scheduler -> compute)
        has run to its end; TimeoutError if it has not within `timeout` seconds. For tests,
        as Dramatiq's StubBroker.join: they await outcomes instead of polling for them.

        A server finishing its message may already have cast the next one, which another
        server (seen idle a moment earlier) is now running: so the check is repeated until
        no message was handed over while the servers were being looked at."""
        deadline = time.monotonic() + timeout
        while True:
            with self._changed:
                while self._delivering or self._waiting(time.monotonic()):
                    if not self._changed.wait(deadline - time.monotonic()):
                        raise TimeoutError(self._not_idle(timeout))
                handed_over = self._delivered
                servers = {id(lst.handler): lst.handler
                           for listeners in self._by_topic.values() for lst in listeners}
            for server in servers.values():
                if not server.wait_idle(max(0.0, deadline - time.monotonic())):
                    with self._lock:
                        raise TimeoutError(self._not_idle(timeout))
            with self._lock:
                if self._delivered == handed_over and not self._delivering:
                    return

    def _waiting(self, now: float) -> list[str]:
        """Targets with a message still to deliver (calls whose caller gave up excepted)."""
        return [f"{topic}.{server or '*'}" for (topic, server), queue in self._pending.items()
                if any(deadline is None or deadline > now for _, _, deadline in queue)]

    def _not_idle(self, timeout: float) -> str:
        """Why join gave up (the caller holds the lock)."""
        waiting = ", ".join(self._waiting(time.monotonic()))
        return (f"the in-process transport was still busy after {timeout}s"
                + (f"; messages wait for a listener on {waiting}" if waiting else ""))

    def cleanup(self) -> None:
        with self._lock:
            self._by_topic.clear()
            self._pending.clear()
            self._notified.clear()
