"""Sending a notification: `emit` builds the message and hands it to each configured
driver; `enabled` tells emitters whether to build a payload at all.

The notifier is rebuilt whenever the options it depends on change (a dict lookup keyed by
their values), so there is nothing to set up or tear down: the transports it publishes on
are the processes' shared ones (novalite.rpc.transport), cleaned up with them.

Emitting never raises and never blocks on a broker: a payload that cannot be built or a
driver that fails is logged and the notification dropped, as Nova's notifier drops it; the
build, delete or API call that emitted it goes on.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
from collections.abc import Callable

from novalite import plugins
from novalite.conf import CONF
from novalite.context import RequestContext
from novalite.notifications import envelope
from novalite.notifications.drivers import Driver
from novalite.notifications.objects.base import Payload

LOG = logging.getLogger(__name__)

DRIVER_NAMESPACE = "novalite.notifications.drivers"
ERROR = "ERROR"
VERSIONED_FORMATS = ("versioned", "both")


@dataclasses.dataclass(frozen=True)
class Settings:
    drivers: tuple[str, ...]
    transport_url: str
    topics: tuple[str, ...]
    versioned: bool

    @classmethod
    def from_conf(cls) -> Settings:
        group = CONF.oslo_messaging_notifications
        return cls(drivers=tuple(group.driver),
                   transport_url=group.transport_url or CONF.transport_url,
                   topics=tuple(CONF.notifications.versioned_notifications_topics),
                   versioned=CONF.notifications.notification_format in VERSIONED_FORMATS)


@functools.cache
def _drivers(settings: Settings) -> tuple[Driver, ...]:
    """The driver objects for `settings`; ValueError names an unknown driver."""
    found = plugins.namespace(DRIVER_NAMESPACE)
    unknown = [name for name in settings.drivers if name not in found]
    if unknown:
        raise ValueError(f"Unknown notification driver(s) {unknown} in "
                         f"[oslo_messaging_notifications] driver. Known drivers: "
                         f"{plugins.known(DRIVER_NAMESPACE)}")
    return tuple(found[name].load()(settings.transport_url, list(settings.topics))
                 for name in dict.fromkeys(settings.drivers))


def enabled() -> bool:
    """Whether versioned notifications are sent at all (Nova's if_notifications_enabled).
    The drivers are asked first: a cloud without any (the default) is answered by one
    option, and each step of each action asks."""
    drivers = CONF.oslo_messaging_notifications.driver
    return (any(name != "noop" for name in drivers)
            and CONF.notifications.notification_format in VERSIONED_FORMATS)


def check_config() -> None:
    """At a service's start: refuse an unknown driver (a typo would otherwise silence
    notifications for good), and say once that 'unversioned' sends nothing here."""
    settings = Settings.from_conf()
    _drivers(settings)
    if settings.drivers and not settings.versioned:
        _warn_unversioned()


@functools.cache
def _warn_unversioned() -> None:
    LOG.warning("[notifications] notification_format is 'unversioned': novalite has no "
                "legacy notifications, so none are sent. Set it to 'versioned' (or "
                "'both') for Nova's versioned notifications.")


def publisher_id(binary: str, host: str | None = None) -> str:
    """Nova's `<source>:<host>`: novalite-compute on host1 publishes as nova-compute:host1,
    so consumers that select Nova's publishers select ours."""
    source = binary.replace("novalite-", "nova-", 1)
    return f"{source}:{host or CONF.host}"


def emit(ctx: RequestContext | None, event_type: str, payload: Payload | Callable[[], Payload],
         publisher: str, priority: str | None = None) -> None:
    """Send `event_type` with `payload` (or what the callable builds, only if sending) at
    `priority` (default: [notifications] default_level). Never raises."""
    if not enabled():
        return
    settings = Settings.from_conf()
    priority = priority or CONF.notifications.default_level
    try:
        built = payload() if callable(payload) else payload
        message = envelope.message(ctx, publisher, event_type, priority,
                                   built.to_primitive())
        drivers = _drivers(settings)
    except Exception:
        LOG.exception("Could not build notification %s; it is not sent", event_type)
        return
    for driver in drivers:
        try:
            driver.notify(message, priority)
        except Exception:
            LOG.exception("Could not send notification %s through %s", event_type,
                          type(driver).__name__)
