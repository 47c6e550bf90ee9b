"""RabbitMQ transport, with oslo.messaging's topology so operators find familiar queues.

On the durable topic exchange `control_exchange`:

- `<topic>`: a durable queue shared by every server of the topic (the broker round-robins),
- `<topic>.<server>`: a durable queue for one server,
- `<topic>_fanout`: a fanout exchange; each listener binds an exclusive queue of its own.

Senders declare the queue they publish to (once per process), so a cast waits in the
queue until a server starts, as the transport contract asks. A notification goes to the
same exchange with routing key `<topic>.<priority>`, into the durable queue of that name
(declared as oslo.messaging's notifiers declare it), from a thread of its own
(`amqp_notify.py`). Replies travel through the
default exchange to the caller's exclusive `reply_<uuid>` queue, matched by correlation_id.

py-amqp connections are not thread-safe, hence the threading model: each listener and the
one reply reader own a connection, and senders (callers, and servers' executor threads
sending replies) borrow a connection from a pool, one thread at a time.
"""

from __future__ import annotations

import functools
import itertools
import logging
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, InvalidStateError
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import suppress
from typing import Any

import amqp
import amqp.exceptions
import kombu
from oslo_config import cfg

from novalite.conf import CONF
from novalite.rpc import wire
from novalite.rpc.amqp_connection import (
    CONNECT_TIMEOUT,
    CONNECTION_ERRORS,
    Backoff,
    ConsumerLoop,
    Publisher,
    close_quietly,
    connect,
    mask_url,
    unavailable,
)
from novalite.rpc.amqp_notify import PUBLISH_TIMEOUT, NotificationSender
from novalite.rpc.errors import MessagingTimeout, TransportUnavailable
from novalite.rpc.target import Target
from novalite.rpc.transport import IncomingHandler, Listener, Message, Reply, Transport

LOG = logging.getLogger(__name__)

# Messages held unacked beyond those running: enough to keep a server's executor busy,
# few enough to share work fairly (those acked late count on top, see setup()).
PREFETCH = 64
# How often a call that may be sent again checks that its reply queue still exists.
RESEND_CHECK = 1.0
RESENT = "novalite-resent"  # the header of a call sent again: handled as a redelivery
JSON_PROPERTIES = {"content_type": "application/json", "content_encoding": "utf-8"}
TRANSIENT, PERSISTENT = 1, 2


def _topic(target: Target) -> str:
    """The topic a queue or exchange is named for; every AMQP target has one."""
    if target.topic is None:
        raise ValueError(f"An AMQP target needs a topic: {target}")
    return target.topic


def _option(name: str, default: Any) -> Any:
    """CONF's value, or `default` when the option is not registered (library use); any
    other trouble with the configuration is the caller's to see, not hidden."""
    try:
        return getattr(CONF, name)
    except cfg.NoSuchOptError:
        return default


class _ServerConsumer(ConsumerLoop):
    """Feeds a listener's handler from the topic, server and fanout queues.

    Acknowledgements: a message is acked when taken, unless the handler says it acks
    late (`acks_late`); then when its executor thread hands its delivery tag back (it
    runs on another thread, and a py-amqp channel is this thread's alone: the tag goes
    through `_done` and a kick, and is acked in `flush`). Acks go out in as few frames
    as they can: the oldest settled messages in one (`multiple`), a settled message
    behind one still running on its own. A tag handed back for a channel lost since
    is dropped: the broker requeued its message with that channel, and the tag means
    nothing (or another message) on the new one.
    """

    def __init__(
        self, transport: AMQPTransport, target: Target, handler: IncomingHandler
    ) -> None:
        super().__init__(transport.url, f"amqp-listen-{target.topic}.{target.server or '*'}")
        self.transport = transport
        self.target = target
        self.handler = handler
        self.channel: amqp.Channel | None = None
        self._batch: list[amqp.Message] = []
        self._holding = False  # messages wait here for room in the handler's executor
        # Taken and not acked yet, oldest first: delivery tag -> may be acked now.
        self._unacked: dict[int, bool] = {}
        self._settled = 0  # how many of _unacked may be acked now
        self._done: deque[tuple[int, int]] = deque()  # (channel generation, tag) handed back
        self._generation = 0  # one per channel: tags are only meaningful on their own
        handler.watch_room(self._room_made)

    def setup(self, channel: amqp.Channel) -> None:
        topic, server = _topic(self.target), self.target.server
        self.channel, self._batch = channel, []
        self._generation += 1
        self._unacked, self._settled = {}, 0
        # The broker stops sending at this many unacked: those held here (PREFETCH),
        # and those acked late, which stay unacked while the executor has them.
        channel.basic_qos(0, PREFETCH + self.handler.late_ack_capacity(), False)
        queues = [topic] + ([f"{topic}.{server}"] if server else [])
        for queue in queues:
            self.transport._declare_queue(channel, queue)
        fanout = f"{topic}_fanout_{uuid.uuid4().hex}"  # new name: no clash with a dying one
        self.transport._declare_fanout(channel, topic)
        channel.queue_declare(fanout, exclusive=True, auto_delete=True)
        channel.queue_bind(fanout, f"{topic}_fanout")
        for queue in [*queues, fanout]:
            channel.basic_consume(queue, callback=self._on_message)

    def _on_message(self, msg: amqp.Message) -> None:
        if not self.stopping.is_set():  # else not acked: the broker requeues it on close
            self._batch.append(msg)

    def flush(self) -> None:
        """Ack what was handed back, and hand over what arrived, as much as the executor
        has room for. The rest waits here unacked, and beyond the prefetch count the
        broker sends no more: a backlog stays in the queue, where a server killed with
        it in memory would have lost it (the conductor's whole backlog of builds, in
        one storm), and where another server or this one's successor takes it. A
        message acked when taken (as oslo.messaging does) is never run twice; one acked
        late is run again if its server dies first."""
        if self.stopping.is_set():
            return
        self._collect_done()
        if self._batch:
            self._take()
        if self._settled:
            self._ack()

    def _take(self) -> None:
        self._holding = True  # a message done from here on kicks: no room goes unseen
        room = self.handler.room()
        taken, self._batch = self._batch[:room], self._batch[room:]
        self._holding = bool(self._batch)
        if not taken:
            return
        parsed = [(msg, self._parse(msg)) for msg in taken]
        late = [message is not None and self.handler.acks_late(message)
                for _, message in parsed]
        for (msg, _), acks_late in zip(parsed, late, strict=True):
            self._unacked[msg.delivery_tag] = not acks_late
        self._settled += late.count(False)
        if self._settled:
            self._ack()  # before they run: those acked early are never run twice
        for (msg, message), acks_late in zip(parsed, late, strict=True):
            if message is not None:
                self._deliver(msg, message, acks_late)

    def _collect_done(self) -> None:
        while self._done:
            generation, tag = self._done.popleft()
            if generation == self._generation and self._unacked.get(tag) is False:
                self._unacked[tag] = True
                self._settled += 1

    def _ack(self) -> None:
        """Ack every settled message: the run of them from the oldest in one frame,
        each behind an unsettled one on its own."""
        assert self.channel is not None, "messages arrive only once setup() gave a channel"
        run = [tag for tag, _ in itertools.takewhile(lambda item: item[1],
                                                     self._unacked.items())]
        if run:
            self.channel.basic_ack(run[-1], multiple=True)
        for tag in [tag for tag, settled in self._unacked.items() if settled][len(run):]:
            self.channel.basic_ack(tag)
            run.append(tag)
        for tag in run:
            del self._unacked[tag]
        self._settled = 0

    def _room_made(self) -> None:
        if self._holding:
            self.kick()

    def _handed_back(self, tag: int) -> Callable[[], None]:
        """What the executor calls when the message is done: any thread may."""
        generation = self._generation

        def done() -> None:
            self._done.append((generation, tag))
            self.kick()
        return done

    def _parse(self, msg: amqp.Message) -> Message | None:
        try:
            message: Message = wire.decode(msg.body)
        except ValueError as exc:
            LOG.error("Dropping a message on topic %s that is not JSON: %s",
                      self.target.topic, exc)
            return None
        return message

    def _deliver(self, msg: amqp.Message, message: Message, acks_late: bool) -> None:
        props = msg.properties
        reply_to, msg_id = props.get("reply_to"), props.get("correlation_id")
        reply = (self.transport._replier(reply_to, msg_id, props.get("expiration"))
                 if reply_to and msg_id else None)
        done = self._handed_back(msg.delivery_tag) if acks_late else None
        try:
            self.handler.deliver(message, reply, done,
                                 redelivered=bool(msg.delivery_info.get("redelivered")
                                                  or (msg.headers or {}).get(RESENT)))
        except Exception:  # a handler bug must not cost the connection
            LOG.exception("RPC server on topic %s could not take a message",
                          self.target.topic)
            if done:
                done()


class _ReplyConsumer(ConsumerLoop):
    """Resolves callers' futures from the transport's reply queue."""

    def __init__(self, transport: AMQPTransport) -> None:
        super().__init__(transport.url, "amqp-replies")
        self.pending = transport._pending
        self.queue: str | None = None

    def setup(self, channel: amqp.Channel) -> None:
        # A new name per connection: the broker may not have dropped the old one yet.
        queue = f"reply_{uuid.uuid4().hex}"
        channel.queue_declare(queue, exclusive=True, auto_delete=True)
        channel.basic_consume(queue, callback=self._on_reply, no_ack=True)
        self.queue = queue

    def _on_reply(self, msg: amqp.Message) -> None:
        future = self.pending.get(msg.properties.get("correlation_id"))
        if future is None or future.done():
            return  # the caller gave up already, or this is a duplicate
        try:
            future.set_result(wire.decode(msg.body))
        except ValueError as exc:
            future.set_exception(TransportUnavailable(f"Reply is not JSON: {exc}"))
        except InvalidStateError:
            pass  # resolved meanwhile by cleanup()


class _AMQPListener(Listener):
    def __init__(self, transport: AMQPTransport, consumer: _ServerConsumer) -> None:
        self.transport = transport
        self.consumer = consumer

    def stop(self) -> None:
        self.consumer.stop()
        with self.transport._lock:
            self.transport._consumers.discard(self.consumer)


class AMQPTransport(Transport):
    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.exchange = _option("control_exchange", "novalite") or "novalite"
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self._consumers: set[_ServerConsumer] = set()
        self._replies: _ReplyConsumer | None = None
        self._pending: dict[str, Future] = {}
        self._idle: list[Publisher] = []
        self._declared: set[str] = set()  # queues this process has declared (broker-wide)
        self._notifications: NotificationSender | None = None

    # Declarations, shared by senders and consumers so their arguments always match.

    def _declare_queue(self, channel: amqp.Channel, queue: str) -> None:
        channel.exchange_declare(self.exchange, "topic", durable=True, auto_delete=False)
        channel.queue_declare(queue, durable=True, auto_delete=False)
        channel.queue_bind(queue, self.exchange, routing_key=queue)
        self._declared.add(queue)

    @staticmethod
    def _declare_fanout(channel: amqp.Channel, topic: str) -> None:
        channel.exchange_declare(f"{topic}_fanout", "fanout", durable=False, auto_delete=True)

    # Sending.

    def send(
        self,
        target: Target,
        message: Message,
        wait_for_reply: bool,
        timeout: float | None = None,
        resend: bool = False,
    ) -> Message | None:
        if timeout is None:
            timeout = float(_option("rpc_response_timeout", 60))
        deadline = time.monotonic() + timeout
        body = wire.encode(message)
        declare: Callable[[amqp.Channel], None] | None = None
        if target.fanout:
            exchange, routing_key = f"{target.topic}_fanout", ""
            declare = functools.partial(self._declare_fanout, topic=_topic(target))
        else:
            exchange = self.exchange
            routing_key = f"{target.topic}.{target.server}" if target.server else _topic(target)
            if routing_key not in self._declared:
                declare = functools.partial(self._declare_queue, queue=routing_key)
        if not wait_for_reply:
            self._publish(exchange, routing_key, body, deadline, declare,
                          delivery_mode=PERSISTENT)
            return None

        msg_id = uuid.uuid4().hex
        future: Future = Future()
        self._pending[msg_id] = future

        def publish(again: bool = False) -> str:
            reply_queue = self._reply_queue(deadline)
            # The broker drops a call nobody took in time rather than run it for nobody.
            expiration = str(max(1, int((deadline - time.monotonic()) * 1000)))
            # sent again, it may have been handled: its receiver checks (rpc.redelivered)
            headers = {"application_headers": {RESENT: True}} if again else {}
            self._publish(exchange, routing_key, body, deadline, declare,
                          delivery_mode=TRANSIENT, correlation_id=msg_id,
                          reply_to=reply_queue, expiration=expiration, **headers)
            return reply_queue

        try:
            reply_queue = publish()
            while True:
                left = deadline - time.monotonic()
                try:
                    return future.result(max(0.0, min(left, RESEND_CHECK) if resend else left))
                except FutureTimeout:
                    if not resend or left <= RESEND_CHECK:
                        raise
                if self._reply_queue_lost(reply_queue):
                    LOG.warning("The reply queue of call %s to %s went with its connection: "
                                "sending the call again", msg_id, message.get("method"))
                    reply_queue = publish(again=True)
        except FutureTimeout:
            raise MessagingTimeout(
                f"Timed out after {timeout:g}s waiting for a reply to "
                f"{message.get('method')} on topic {target.topic}"
                + (f" server {target.server}" if target.server else "")
            ) from None
        finally:
            self._pending.pop(msg_id, None)

    def notify(self, topic: str, message: Message) -> None:
        body = wire.encode(message)
        with self._lock:
            if self._closed.is_set():
                LOG.error("Dropped a notification to %s: the transport was cleaned up", topic)
                return
            if self._notifications is None:
                self._notifications = NotificationSender(self._publish_notification)
                self._notifications.start()
            sender = self._notifications
        sender.put(topic, body)

    def _publish_notification(self, routing_key: str, body: bytes, deadline: float) -> None:
        declare = (None if routing_key in self._declared
                   else functools.partial(self._declare_queue, queue=routing_key))
        self._publish(self.exchange, routing_key, body, deadline, declare,
                      delivery_mode=PERSISTENT)

    def _reply_queue(self, deadline: float) -> str:
        with self._lock:
            self._check_open()
            if self._replies is None:
                self._replies = _ReplyConsumer(self)
                self._replies.start()
            replies = self._replies
        if not replies.ready.wait(max(0.0, deadline - time.monotonic())):
            raise unavailable(self.url, None)
        assert replies.queue is not None, "a ready reply consumer has declared its queue"
        return replies.queue

    def _reply_queue_lost(self, reply_queue: str) -> bool:
        """Whether replies to `reply_queue` can no longer come: the reply consumer lost
        the connection that queue lived on (exclusive, it went with it) and consumes
        from another now."""
        replies = self._replies
        return replies is not None and replies.ready.is_set() and replies.queue != reply_queue

    def _replier(self, reply_to: str, msg_id: str, expiration: str | None) -> Reply:
        """The reply callable for one call; safe from any thread, it never raises."""
        budget = int(expiration) / 1000 if expiration else _option("rpc_response_timeout", 60)

        def reply(body: Message) -> None:
            try:
                self._publish("", reply_to, wire.encode(body),
                              time.monotonic() + min(budget, 60), None,
                              delivery_mode=TRANSIENT, correlation_id=msg_id)
            except Exception as exc:  # the server's executor could do no better with it
                LOG.error("Could not send the reply to call %s: %s", msg_id, exc)

        return reply

    def _publish(
        self,
        exchange: str,
        routing_key: str,
        body: bytes,
        deadline: float,
        declare: Callable[[amqp.Channel], None] | None,
        **properties: Any,
    ) -> None:
        """Publish on a pooled connection; on a lost one, reconnect and publish again.
        A persistent message (a cast, a notification) returns only once the broker
        acknowledged it: what it is sent for (a build the API accepted) rests on it.
        Sent again after a connection lost before that ack, it may arrive twice (as
        with oslo.messaging): the copy says so (RESENT), for a receiver that checks
        `rpc.redelivered()`."""
        backoff, failures = Backoff(), 0
        confirm = properties.get("delivery_mode") == PERSISTENT
        while True:
            message = amqp.Message(body, **JSON_PROPERTIES, **properties)
            if confirm and failures:
                message.properties.setdefault("application_headers", {})[RESENT] = True
            publisher = self._acquire(deadline)
            try:
                if declare:
                    declare(publisher.channel)
                if confirm:
                    publisher.confirming().basic_publish_confirm(
                        message, exchange=exchange, routing_key=routing_key,
                        confirm_timeout=max(0.001, deadline - time.monotonic()))
                else:
                    publisher.channel.basic_publish(message, exchange=exchange,
                                                    routing_key=routing_key)
            except (amqp.exceptions.IrrecoverableChannelError,
                    amqp.exceptions.MessageNacked) as exc:
                close_quietly(publisher.conn)  # the broker refused: retrying cannot help
                raise TransportUnavailable(
                    f"RabbitMQ at {mask_url(self.url)} refused a message to {exchange!r} "
                    f"with routing key {routing_key!r}: {str(exc) or type(exc).__name__}"
                ) from exc
            except CONNECTION_ERRORS as exc:
                close_quietly(publisher.conn)
                self._declared.clear()  # the broker may have lost them (a restart)
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise unavailable(self.url, exc) from exc
                # Reconnect at once after a first failure, then back off.
                delay = min(backoff.next(), remaining) if failures else 0
                failures += 1
                LOG.warning("Lost connection to AMQP server on %s while publishing: %s. "
                            "Trying again in %g seconds.", publisher.conn.host, exc, delay)
                self._closed.wait(delay)
                continue
            with self._lock:
                if not self._closed.is_set():
                    self._idle.append(publisher)
                    return
            close_quietly(publisher.conn, graceful=True)
            return

    def _acquire(self, deadline: float) -> Publisher:
        while True:
            with self._lock:
                self._check_open()
                publisher = self._idle.pop() if self._idle else None
            if publisher is None:
                break
            if publisher.usable():
                return publisher
            close_quietly(publisher.conn)
        conn = connect(self.url, self._closed, deadline=deadline)
        if conn is None:  # connect() gives up only once the transport is closed
            self._check_open()
            raise TransportUnavailable(f"The transport to {mask_url(self.url)} was closed")
        try:
            return Publisher(conn)
        except CONNECTION_ERRORS as exc:
            close_quietly(conn)
            raise unavailable(self.url, exc) from exc

    def _check_open(self) -> None:
        if self._closed.is_set():
            raise TransportUnavailable(f"The transport to {mask_url(self.url)} was cleaned up")

    # Receiving.

    def listen(self, target: Target, handler: IncomingHandler) -> Listener:
        """Start consuming in a thread of its own; return once it consumes, or once the
        first connection attempt failed (it keeps trying in the background then)."""
        if not target.topic:
            raise ValueError("A listener needs a topic")
        with self._lock:
            self._check_open()
            consumer = _ServerConsumer(self, target, handler)
            self._consumers.add(consumer)
        consumer.start()
        consumer.settled.wait(CONNECT_TIMEOUT + 5)
        return _AMQPListener(self, consumer)

    def cleanup(self) -> None:
        with self._lock:
            notifications, self._notifications = self._notifications, None
        if notifications is not None:  # the last ones (a service's stop) still go out
            notifications.close(PUBLISH_TIMEOUT)
        with self._lock:
            if self._closed.is_set():
                return
            self._closed.set()
            loops: list[ConsumerLoop] = [*self._consumers]
            if self._replies:
                loops.append(self._replies)
            idle, self._idle = self._idle, []
            self._consumers.clear()
            self._replies = None
        for loop in loops:  # all at once, then wait: each closes in parallel
            loop.signal_stop()
        for loop in loops:
            loop.stop()
        for publisher in idle:
            close_quietly(publisher.conn, graceful=True)
        for future in list(self._pending.values()):
            with suppress(Exception):
                future.set_exception(TransportUnavailable("The transport was cleaned up"))

    def _connections(self) -> list[kombu.Connection]:
        """Every live connection (tests break them to exercise reconnecting)."""
        with self._lock:
            loops: list[ConsumerLoop] = [*self._consumers, *filter(None, [self._replies])]
            conns = [p.conn for p in self._idle]
        return [loop.conn for loop in loops if loop.conn is not None] + conns
