"""Notifications to a broker that cannot be reached: the emitter returns at once and the
notification is dropped with a log line, off the emitter's path (no broker needed)."""

from __future__ import annotations

import logging
import socket

from novalite.rpc import amqp_notify
from novalite.rpc.amqp import AMQPTransport
from tests.waiting import wait_for


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_an_unreachable_broker_drops_the_notification_without_holding_the_emitter(
        conf, caplog, monkeypatch):
    monkeypatch.setattr(amqp_notify, "PUBLISH_TIMEOUT", 1.0)
    transport = AMQPTransport(f"rabbit://guest:guest@127.0.0.1:{_closed_port()}/")
    try:
        with caplog.at_level(logging.ERROR):
            transport.notify("versioned_notifications.info", {"event_type": "x"})
            transport.notify("versioned_notifications.info", {"event_type": "y"})
            # back already, while the sender is still trying the broker
            assert "Dropped" not in caplog.text
            wait_for(lambda: "Dropped" in caplog.text, what="the drop to be logged")
    finally:
        transport.cleanup()
    assert "to versioned_notifications.info" in caplog.text


def test_a_full_backlog_drops_the_newest_and_says_so_once(caplog, monkeypatch):
    monkeypatch.setattr(amqp_notify, "BACKLOG", 1)
    sender = amqp_notify.NotificationSender(lambda *args: None)  # not started: nothing drains
    with caplog.at_level(logging.ERROR):
        for _ in range(3):
            sender.put("t.info", b"{}")
    assert caplog.text.count("Dropping notifications to t.info") == 1
