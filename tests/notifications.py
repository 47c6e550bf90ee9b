"""A notification consumer for tests: subscribes to the in-process transport's
versioned_notifications topics and lets a test wait for events (no sleeps)."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from novalite.notifications import envelope
from novalite.rpc.inprocess import InProcessTransport
from novalite.rpc.transport import get_transport

PRIORITIES = ("info", "error")


def enable(conf, **notifications: Any) -> None:
    """Versioned notifications on, through the messagingv2 driver (what Nova's consumers
    read); `notifications` sets more [notifications] options."""
    conf.set_override("driver", ["messagingv2"], group="oslo_messaging_notifications")
    conf.set_override("notification_format", "versioned", group="notifications")
    for name, value in notifications.items():
        conf.set_override(name, value, group="notifications")


class Sink:
    """Every notification published in this process, unwrapped, in order."""

    def __init__(self, url: str = "inprocess://", topic: str = "versioned_notifications"
                 ) -> None:
        self.received: list[dict[str, Any]] = []
        self._changed = threading.Condition()
        transport = get_transport(url)
        assert isinstance(transport, InProcessTransport)
        self._listeners = [transport.listen_notifications(f"{topic}.{priority}", self._take)
                           for priority in PRIORITIES]

    def _take(self, wire: dict[str, Any]) -> None:
        with self._changed:
            self.received.append(envelope.unwrap(wire))
            self._changed.notify_all()

    def events(self, prefix: str = "", uuid: str | None = None) -> list[str]:
        """The event types received so far, those starting with `prefix` (and about
        instance `uuid`) only."""
        with self._changed:
            return [m["event_type"] for m in self.received
                    if m["event_type"].startswith(prefix)
                    and (uuid is None or _uuid(m) == uuid)]

    def wait(self, event_type: str, uuid: str | None = None, timeout: float = 15
             ) -> dict[str, Any]:
        """The first notification of `event_type` (about instance `uuid`)."""
        def found() -> dict[str, Any] | None:
            return next((m for m in self.received if m["event_type"] == event_type
                         and (uuid is None or _uuid(m) == uuid)), None)

        with self._changed:
            if not self._changed.wait_for(found, timeout):
                raise AssertionError(f"no {event_type} within {timeout}s; got "
                                     f"{[m['event_type'] for m in self.received]}")
            return found()  # type: ignore[return-value]

    def stop(self) -> None:
        for listener in self._listeners:
            listener.stop()


def _uuid(message: dict[str, Any]) -> str | None:
    return message["payload"]["nova_object.data"].get("uuid")


@pytest.fixture
def sink(conf):
    """Versioned notifications on, and a Sink of them (registered by tests/conftest.py)."""
    enable(conf)
    listening = Sink()
    yield listening
    listening.stop()
