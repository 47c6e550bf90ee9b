"""In-process transport: services in one process exchange messages without a broker.

Messages still go through a JSON round trip, so whatever works here also works over
RabbitMQ (no shared mutable objects, no ORM rows). A call runs in the caller's own thread
(as a local function call would; it ends when the method returns), a cast or fanout on the
receiving server's executor: no polling, no queues in between (oslo.messaging's in-memory driver
polls every 50 ms, which is why it is not used).
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections import defaultdict, deque
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout

from novalite.rpc.errors import MessagingTimeout
from novalite.rpc.target import Target
from novalite.rpc.transport import IncomingHandler, Listener, Message, Transport


def _copy(message: Message) -> Message:
    return json.loads(json.dumps(message))


class _InProcessListener(Listener):
    def __init__(self, transport: InProcessTransport, target: Target, handler: IncomingHandler):
        self.transport = transport
        self.target = target
        self.handler = handler

    def stop(self) -> None:
        self.transport._unregister(self)


class InProcessTransport(Transport):
    def __init__(self, url: str = "inprocess://") -> None:
        super().__init__(url)
        self._lock = threading.Lock()
        self._by_topic: dict[str, list[_InProcessListener]] = defaultdict(list)
        self._round_robin: dict[str, itertools.count] = defaultdict(itertools.count)
        # Messages for targets nobody listens on yet, delivered when a listener appears.
        self._pending: dict[tuple[str, str | None], deque] = defaultdict(deque)

    def listen(self, target: Target, handler: IncomingHandler) -> Listener:
        listener = _InProcessListener(self, target, handler)
        with self._lock:
            self._by_topic[target.topic].append(listener)
            backlog = [*self._pending.pop((target.topic, target.server), ()),
                       *self._pending.pop((target.topic, None), ())]
        now = time.monotonic()
        for message, reply, deadline in backlog:
            if deadline is None or deadline > now:  # a caller that gave up wants no reply
                handler.deliver(message, reply)
        return listener

    def _unregister(self, listener: _InProcessListener) -> None:
        with self._lock:
            listeners = self._by_topic.get(listener.target.topic, [])
            if listener in listeners:
                listeners.remove(listener)

    def _recipients(self, target: Target) -> list[_InProcessListener]:
        listeners = self._by_topic.get(target.topic, [])
        if target.fanout:
            return list(listeners)
        if target.server is not None:
            return [lst for lst in listeners if lst.target.server == target.server][:1]
        if not listeners:
            return []
        return [listeners[next(self._round_robin[target.topic]) % len(listeners)]]

    def send(
        self,
        target: Target,
        message: Message,
        wait_for_reply: bool,
        timeout: float | None = None,
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
            for listener in recipients:
                listener.handler.deliver(message, None)
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

    def cleanup(self) -> None:
        with self._lock:
            self._by_topic.clear()
            self._pending.clear()
