"""oslo.messaging's notification drivers, by the names operators set in
`[oslo_messaging_notifications] driver` (entry points `novalite.notifications.drivers`).

- `messagingv2`: the enveloped message to each topic's `<topic>.<priority>` routing key
  on the notification transport — what Nova's consumers read;
- `messaging`: the same without the envelope (oslo.messaging's 1.0 format);
- `log`: one log line per notification, on the logger
  `oslo.messaging.notification.<event_type>` at the notification's priority, as
  oslo.messaging's log driver writes it;
- `noop`: nothing.
"""

from __future__ import annotations

import abc
import json
import logging
from typing import Any

from novalite.notifications import envelope
from novalite.rpc.transport import get_transport

LOG_BASE = "oslo.messaging.notification"
_LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warn": logging.WARNING,
           "error": logging.ERROR, "critical": logging.CRITICAL}


class Driver(abc.ABC):
    def __init__(self, transport_url: str, topics: list[str]) -> None:
        self.transport_url = transport_url
        self.topics = topics

    @abc.abstractmethod
    def notify(self, message: dict[str, Any], priority: str) -> None:
        """Send one message (see envelope.message); may raise, the notifier logs it."""


class MessagingV2Driver(Driver):
    def notify(self, message: dict[str, Any], priority: str) -> None:
        self._send(envelope.wrap(message), priority)

    def _send(self, wire: dict[str, Any], priority: str) -> None:
        transport = get_transport(self.transport_url)
        for topic in self.topics:
            transport.notify(f"{topic}.{priority.lower()}", wire)


class MessagingDriver(MessagingV2Driver):
    def notify(self, message: dict[str, Any], priority: str) -> None:
        self._send(message, priority)


class LogDriver(Driver):
    def notify(self, message: dict[str, Any], priority: str) -> None:
        logger = logging.getLogger(f"{LOG_BASE}.{message['event_type']}")
        logger.log(_LEVELS.get(priority.lower(), logging.INFO), json.dumps(message))


class NoopDriver(Driver):
    def notify(self, message: dict[str, Any], priority: str) -> None:
        """Sends nothing: for turning notifications off while keeping the format set."""
