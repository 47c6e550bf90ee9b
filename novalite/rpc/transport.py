"""The transport contract: move JSON-able message dicts to listeners and replies back.

A transport knows nothing of methods, versions or objects (that is the client's and the
server's job); it only routes. Addressing, shared by every transport:

- `Target(topic, server=None)`: one of the listeners on `topic` (work sharing).
- `Target(topic, server=S)`: the listener that registered as server S on `topic`.
- `Target(topic, fanout=True)`: every listener on `topic`.

Notifications (`notify`) are one-way and addressed by a routing key alone; they go where
oslo.messaging's notifiers put them, so that its notification listeners read them.

A message for which no listener exists yet waits until one registers (a queue on a
broker does the same), so a call to a service that is down ends in MessagingTimeout.
"""

from __future__ import annotations

import abc
import threading
from collections.abc import Callable
from typing import Any, Protocol
from urllib.parse import urlsplit

from novalite import plugins
from novalite.rpc.target import Target

Message = dict[str, Any]
Reply = Callable[[Message], None]


class IncomingHandler(Protocol):
    """What a listener hands messages to (the RPC server implements it)."""

    def deliver(self, message: Message, reply: Reply | None,
                done: Callable[[], None] | None = None, redelivered: bool = False) -> None:
        """Queue `message` for the server's executor; `reply` is None for casts.
        Returns at once, so a transport's consumer thread is never blocked. `done`, when
        given, is called from the executor once the message was handled, whatever the
        outcome (a transport acknowledging it late acks it then); `redelivered` says the
        broker may have handed it to someone before (who died or lost the connection)."""

    def acks_late(self, message: Message) -> bool:
        """Whether `message` is acknowledged only once handled rather than when taken:
        its method opted in (`novalite.rpc.ack_when_done`), its work must survive the
        death of the server that took it, and its handler is idempotent."""

    def late_ack_capacity(self) -> int:
        """How many messages acknowledged late it may run or queue at once (0 when none
        of its methods acks late): a broker counting unacknowledged messages must let
        that many more through, or the executor would never fill."""

    def run_inline(self, message: Message) -> Message:
        """Run a call in the sender's own thread and return the reply. Only transports
        whose sender and server share a process use this (it saves two thread hops)."""

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Wait until no message is in flight; False if some still were at `timeout`."""

    def room(self) -> int:
        """How many more messages the executor can start on at once. A transport whose
        broker keeps messages hands over no more than that, and leaves the rest queued
        there (where another server, or this one's successor, finds them)."""

    def watch_room(self, wake: Callable[[], None]) -> None:
        """Call `wake` when a message is done and room was made for a batch."""

    def wait_for_room(self, timeout: float) -> bool:
        """Wait until one of the executor's threads is free; False at `timeout`."""


TRANSPORT_NAMESPACE = "novalite.rpc.transports"


class Listener(abc.ABC):
    @abc.abstractmethod
    def stop(self) -> None:
        """Stop receiving new messages; messages already handed over are not affected."""


class Transport(abc.ABC):
    # Whether a message outlives the process that took it: a broker delivers again what
    # a dead consumer did not acknowledge. False where messages live in the process.
    keeps_messages = True

    def __init__(self, url: str) -> None:
        self.url = url

    @abc.abstractmethod
    def send(
        self,
        target: Target,
        message: Message,
        wait_for_reply: bool,
        timeout: float | None = None,
        resend: bool = False,
    ) -> Message | None:
        """Deliver `message`; for a call, block for the reply and return it.

        Raises MessagingTimeout when `wait_for_reply` and no reply came within `timeout`.
        `resend`: the receiver may run the call again (its method finds its own work
        done), so a call whose reply can no longer come (the caller lost the queue the
        reply would go to) is sent again rather than waited out.
        """

    @abc.abstractmethod
    def listen(self, target: Target, handler: IncomingHandler) -> Listener:
        """Receive messages for `target.topic`, `target.topic` + `target.server`, and the
        topic's fanout."""

    @abc.abstractmethod
    def notify(self, topic: str, message: Message) -> None:
        """Publish a notification with routing key `topic` ('<topic>.<priority>', as
        oslo.messaging's notifiers) for whoever consumes it. Never raises and never waits
        on a broker: a notification that cannot be delivered is logged and dropped, as
        oslo.messaging's notifier drops it, and the operation that emitted it goes on."""

    def cleanup(self) -> None:  # noqa: B027 (optional hook)
        """Release connections and threads."""


_transports: dict[str, Transport] = {}
_lock = threading.Lock()


def get_transport(url: str) -> Transport:
    """The process-wide transport for `url` (one per URL, so in-process peers meet)."""
    with _lock:
        transport = _transports.get(url)
        if transport is None:
            transport = _load(url)
            _transports[url] = transport
        return transport


def reset_transports() -> None:
    """Tear down every transport of this process (tests, and all-in-one shutdown)."""
    with _lock:
        for transport in _transports.values():
            transport.cleanup()
        _transports.clear()


def _load(url: str) -> Transport:
    scheme = urlsplit(url).scheme
    found = plugins.namespace(TRANSPORT_NAMESPACE).get(scheme)
    if found is None:
        raise ValueError(f"Unknown transport_url scheme '{scheme}' in '{url}'. Known "
                         f"schemes: {plugins.known(TRANSPORT_NAMESPACE)}")
    return found.load()(url)
