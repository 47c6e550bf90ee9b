"""Notifications to RabbitMQ, sent from a thread of their own.

A notification must never slow down or fail the operation that emits it (a build, a
delete): the emitting thread only puts it on a bounded queue, and this thread publishes it
with a short deadline. When the broker cannot be reached the notification is logged and
dropped, as oslo.messaging's notifier drops it, and so is everything that queued up behind
it meanwhile (one log line for all of them): under an outage the queue stays short and
each later notification tries the broker again. A full queue drops the newest.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable

LOG = logging.getLogger(__name__)

BACKLOG = 10_000  # notifications waiting to be published, at most (a few MB)
PUBLISH_TIMEOUT = 5.0  # seconds one notification may spend reaching the broker
_STOP = None

# publish(routing_key, body, deadline): raises when the broker could not take it in time.
Publish = Callable[[str, bytes, float], None]


class NotificationSender(threading.Thread):
    def __init__(self, publish: Publish, name: str = "amqp-notifications") -> None:
        super().__init__(name=name, daemon=True)
        self._publish = publish
        self._queue: queue.Queue[tuple[str, bytes] | None] = queue.Queue(BACKLOG)
        self._full_since: float | None = None  # the backlog overflowed: logged once

    def put(self, routing_key: str, body: bytes) -> None:
        """Queue a notification; never blocks."""
        try:
            self._queue.put_nowait((routing_key, body))
            self._full_since = None
        except queue.Full:
            if self._full_since is None:
                self._full_since = time.monotonic()
                LOG.error("Dropping notifications to %s: %d are already waiting for the "
                          "message broker", routing_key, BACKLOG)

    def close(self, timeout: float) -> None:
        """Publish what is queued (for at most `timeout` seconds), then stop."""
        try:
            self._queue.put(_STOP, timeout=timeout)
        except queue.Full:
            return  # the thread is stuck on the broker; it is a daemon and dies with us
        self.join(timeout)

    def run(self) -> None:
        while (item := self._queue.get()) is not _STOP:
            routing_key, body = item
            try:
                self._publish(routing_key, body, time.monotonic() + PUBLISH_TIMEOUT)
            except Exception as exc:
                dropped = 1 + self._drop_queued()
                LOG.error("Dropped %d notification(s) to %s: %s", dropped, routing_key, exc)

    def _drop_queued(self) -> int:
        """Empty the queue (a stop request is kept); how many notifications went."""
        dropped, stop = 0, False
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                break
            if item is _STOP:
                stop = True
            else:
                dropped += 1
        if stop:
            self._queue.put_nowait(_STOP)
        return dropped
