"""Connections to RabbitMQ for the AMQP transport: connecting with backoff, a consuming
thread that survives broker restarts, and a publisher for one thread at a time.

Everything that needs a connection goes through `connect`, so a broker that is down or
restarting produces the same log lines everywhere (oslo.messaging's wording): one ERROR
per failed attempt, one INFO when it is back.
"""

from __future__ import annotations

import logging
import os
import select
import threading
import time
from collections.abc import Callable
from contextlib import suppress
from urllib.parse import urlsplit, urlunsplit

import amqp
import amqp.exceptions
import kombu
import kombu.exceptions

from novalite.rpc.errors import TransportUnavailable

LOG = logging.getLogger(__name__)

# What a lost or refused connection raises, from the socket up to kombu.
CONNECTION_ERRORS: tuple[type[Exception], ...] = (
    OSError, amqp.exceptions.AMQPError, kombu.exceptions.KombuError,
)
CONNECT_TIMEOUT = 5.0
HEARTBEAT = 30  # consumers only: they wake up every second anyway to check it
READ_AHEAD = 8192  # bytes per recv(): a burst of messages, yet cheap to re-slice per frame


def to_kombu_url(url: str) -> str:
    """oslo.messaging's `rabbit://` is kombu's `amqp://` (py-amqp); the rest is the same."""
    parts = urlsplit(url)
    return urlunsplit(parts._replace(scheme="amqp")) if parts.scheme == "rabbit" else url


def mask_url(url: str) -> str:
    """The URL as it may appear in logs and error messages: password replaced by ****."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    userinfo, _, hostport = parts.netloc.rpartition("@")
    return urlunsplit(parts._replace(netloc=f"{userinfo.partition(':')[0]}:****@{hostport}"))


def unavailable(url: str, exc: BaseException | None) -> TransportUnavailable:
    return TransportUnavailable(
        f"Cannot reach the message broker at {mask_url(url)}" + (f" ({exc})" if exc else "")
        + ": check that RabbitMQ is running and that transport_url is right.")


class Backoff:
    """Delays of 1, 2, 4 ... seconds capped at 30: quick after a blip, gentle on a dead
    broker that every service of the cloud is knocking on."""

    def __init__(self, first: float = 1.0, cap: float = 30.0) -> None:
        self.first = first
        self.cap = cap
        self._next = first

    def next(self) -> float:
        delay = self._next
        self._next = min(self._next * 2, self.cap)
        return delay

    def reset(self) -> None:
        self._next = self.first


def connect(
    url: str,
    stop: threading.Event,
    deadline: float | None = None,
    heartbeat: int = 0,
    reconnecting: bool = False,
    on_failure: Callable[[], None] | None = None,
) -> kombu.Connection | None:
    """A connected kombu Connection, retrying with backoff until it works.

    Returns None if `stop` is set while waiting; raises TransportUnavailable once
    `deadline` (a time.monotonic() value) has passed. `heartbeat` is only worth enabling
    for connections whose owner calls heartbeat_check regularly (the consumers).
    """
    kombu_url = to_kombu_url(url)
    backoff, failed = Backoff(), False
    while not stop.is_set():
        conn = kombu.Connection(kombu_url, connect_timeout=CONNECT_TIMEOUT, heartbeat=heartbeat)
        try:
            # max_retries=0: a single attempt; the retrying (and its logging) is ours.
            conn.ensure_connection(max_retries=0, reraise_as_library_errors=False)
        except CONNECTION_ERRORS as exc:
            close_quietly(conn)
            delay = backoff.next()
            if deadline is not None:
                if deadline - time.monotonic() <= 0:
                    raise unavailable(url, exc) from exc
                delay = min(delay, deadline - time.monotonic())
            LOG.error("AMQP server on %s is unreachable: %s. Trying again in %g seconds.",
                      conn.host, exc or type(exc).__name__, round(delay, 1))
            failed = True
            if on_failure:
                on_failure()
            stop.wait(delay)
            continue
        if failed or reconnecting:
            LOG.info("Reconnected to AMQP server on %s", conn.host)
        return conn
    return None


def close_quietly(conn: kombu.Connection | None, graceful: bool = False) -> None:
    """Close without ever hanging on a broker that may be gone.

    `graceful` says goodbye in protocol (the broker logs no error and requeues at once)
    but gives the broker only a second to answer; otherwise the socket is just dropped.
    """
    if conn is None:
        return
    try:
        if graceful and conn.connected:
            conn.connection.sock.settimeout(1.0)
            conn.release()
        else:
            conn.collect()
    except Exception:  # best effort: the connection is being dropped anyway
        LOG.debug("Ignoring error while closing an AMQP connection", exc_info=True)
        with suppress(Exception):
            conn.collect()


class Publisher:
    """A connection that one thread at a time publishes on: a plain channel, and one in
    confirm mode for the messages a sender must know the broker took (see `confirming`)."""

    def __init__(self, conn: kombu.Connection) -> None:
        self.conn = conn
        self.channel = conn.channel()
        self._confirming: amqp.Channel | None = None
        # py-amqp otherwise polls for connection.blocked before every publish, at the cost
        # of four fcntl()s, a recv() and an exception; usable() does that with a select().
        conn.connection.client_properties.get("capabilities", {})["connection.blocked"] = False

    def confirming(self) -> amqp.Channel:
        """The channel whose publishes the broker acknowledges (publisher confirms, as
        oslo.messaging's rabbit driver asks for): bytes written to a connection that is
        lost the next moment may never reach the broker, and without its ack the
        sender would believe a message sent that no queue ever held."""
        if self._confirming is None:
            self._confirming = self.conn.channel()
            self._confirming.confirm_select()
        return self._confirming

    def usable(self) -> bool:
        """False when the broker closed the connection since its last use.

        A write to a connection the peer has closed can still succeed once, losing the
        message; the close frame or EOF waiting on the socket tells us beforehand.
        """
        try:
            amqp_conn = self.conn.connection
            if select.select([amqp_conn.sock], [], [], 0)[0]:
                amqp_conn.drain_events(timeout=0)
            return self.channel.is_open
        except Exception:  # whatever it was, this connection is done
            return False


class ConsumerLoop(threading.Thread):
    """A thread consuming on a connection of its own, reconnecting until stopped.

    Subclasses declare and consume in `setup` (run again on every new connection, as the
    broker forgets exclusive queues with the connection). The thread waits in select() on
    the socket and on two pipes, so stop() takes effect at once rather than at the next
    poll, and kick() makes it `flush` again (work it held back can go now).
    """

    def __init__(self, url: str, name: str) -> None:
        super().__init__(name=name, daemon=True)
        self.url = url
        self.conn: kombu.Connection | None = None
        self.ready = threading.Event()  # consuming right now
        self.settled = threading.Event()  # the first attempt is over, whatever its outcome
        self.stopping = threading.Event()
        self._wake_r, self._wake_w = os.pipe()
        self._kick_r, self._kick_w = os.pipe()
        self._wake_lock = threading.Lock()  # no write to the pipes once run() closed them
        self._pipe_open = True

    def setup(self, channel: amqp.Channel) -> None:
        raise NotImplementedError

    def flush(self) -> None:
        """Called before waiting for more data: act on what the frames read so far held."""

    def signal_stop(self) -> None:
        self.stopping.set()
        self._write(self._wake_w)

    def kick(self) -> None:
        self._write(self._kick_w)

    def _write(self, pipe: int) -> None:
        with self._wake_lock:
            if self._pipe_open:
                os.write(pipe, b"x")

    def stop(self, timeout: float = 5.0) -> None:
        self.signal_stop()
        if self.is_alive() and threading.current_thread() is not self:
            self.join(timeout)

    def run(self) -> None:
        backoff, reconnecting = Backoff(), False
        try:
            while not self.stopping.is_set():
                conn = connect(self.url, self.stopping, heartbeat=HEARTBEAT,
                               reconnecting=reconnecting, on_failure=self.settled.set)
                if conn is None:
                    return
                reconnecting = True
                delay = self._serve(conn, backoff)
                if delay:
                    self.stopping.wait(delay)
        finally:
            self.settled.set()
            with self._wake_lock:
                self._pipe_open = False
                for pipe in (self._wake_r, self._wake_w, self._kick_r, self._kick_w):
                    os.close(pipe)

    def _serve(self, conn: kombu.Connection, backoff: Backoff) -> float:
        """Set up and consume until the connection fails; the delay before reconnecting."""
        graceful, delay = False, 0.0
        try:
            self.setup(conn.channel())
            self.conn = conn
            self.ready.set()
            self.settled.set()
            self._consume(conn)
            graceful = True
            backoff.reset()
        except CONNECTION_ERRORS as exc:
            if self.ready.is_set():  # lost while consuming: reconnect at once
                if not self.stopping.is_set():
                    LOG.warning("Lost connection to AMQP server on %s: %s. Reconnecting.",
                                conn.host, exc or type(exc).__name__)
                backoff.reset()
            else:  # refused while setting up (a conflicting queue?): it may last, back off
                delay = backoff.next()
                LOG.error("Cannot consume on AMQP server %s: %s. Trying again in %g seconds.",
                          conn.host, exc, delay)
        except Exception:  # a bug here must show, and must not turn into a busy loop
            delay = backoff.next()
            LOG.exception("Consumer %s failed; reconnecting in %g seconds", self.name, delay)
        finally:
            self.ready.clear()
            self.settled.set()
            self.conn = None
            close_quietly(conn, graceful=graceful)
        return delay

    def _consume(self, conn: kombu.Connection) -> None:
        amqp_conn = conn.connection
        sock, transport, last_beat = amqp_conn.sock, amqp_conn.transport, time.monotonic()
        # py-amqp recv()s each frame in three parts; reading ahead instead makes a message
        # (or a burst of them) one system call. py-amqp keeps the surplus in _read_buffer.
        transport._quick_recv = lambda n: sock.recv(max(n, READ_AHEAD))
        while not self.stopping.is_set():
            buffered = transport._read_buffer
            if not _whole_frame(buffered):
                self.flush()
                if not buffered:  # nothing begun: wait for data, stop(), kick() or a tick
                    readable = select.select([sock, self._wake_r, self._kick_r], [], [],
                                             1.0)[0]
                    if self._wake_r in readable:
                        return
                    if self._kick_r in readable:
                        os.read(self._kick_r, 4096)
                        continue
                    if sock not in readable:
                        conn.heartbeat_check()
                        last_beat = time.monotonic()
                        continue
            amqp_conn.blocking_read(None)  # one frame; blocks only for the rest of one begun
            if time.monotonic() - last_beat >= 1.0:
                conn.heartbeat_check()
                last_beat = time.monotonic()


def _whole_frame(buffered: bytes) -> bool:
    """Whether an AMQP frame (7-byte header, payload, end octet) is entirely in `buffered`."""
    return len(buffered) >= 8 and len(buffered) >= 8 + int.from_bytes(buffered[3:7], "big")

