"""The notifications that are not about an instance's action on a compute host: what the
API, the scheduler and every service at start send (Nova's publishers: nova-api,
nova-scheduler, nova-<service>).

- `start_end(...)`: `<object>.<action>.start`, the work, `<object>.<action>.end` (Nova's
  aggregate.*, keypair.*, scheduler.select_destinations.*); the end payload is built
  from the work's result, and a failure sends no end but, from the API, compute.exception,
  as Nova's wrap_exception does.
- `send(...)`: a single notification (flavor.*, server_group.*, service.update,
  scheduler.select_destinations.*).
- `exception(...)`: compute.exception, with the ExceptionPayload of a failure.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

from novalite import context
from novalite.context import RequestContext
from novalite.notifications import notifier
from novalite.notifications.objects.base import Payload
from novalite.notifications.objects.exception import ExceptionPayload
from novalite.notifications.objects.service import ServiceStatusPayload
from novalite.objects.service import Service

API = "novalite-api"


class Outcome:
    """Where the work inside start_end puts what the `.end` payload is built from."""

    def __init__(self) -> None:
        self.end: Callable[[], Payload] | None = None


@contextlib.contextmanager
def start_end(event: str, start: Callable[[], Payload], binary: str = API,
              ctx: RequestContext | None = None, host: str | None = None,
              wrap_exception: bool = True) -> Iterator[Outcome]:
    """`event` is '<object>.<action>'; set `outcome.end` to the end payload's builder
    (unset, the start payload is sent again, as for a delete). `wrap_exception`: a
    failure sends compute.exception (Nova's API methods are wrapped so, its scheduler's
    are not)."""
    ctx = ctx or context.current()
    publisher = notifier.publisher_id(binary, host)
    notifier.emit(ctx, f"{event}.start", start, publisher)
    outcome = Outcome()
    try:
        yield outcome
    except Exception as exc:
        if wrap_exception:
            exception(exc, binary, ctx, host)
        raise
    notifier.emit(ctx, f"{event}.end", outcome.end or start, publisher)


def send(event: str, payload: Callable[[], Payload], binary: str = API,
         ctx: RequestContext | None = None, host: str | None = None) -> None:
    notifier.emit(ctx or context.current(), event, payload,
                  notifier.publisher_id(binary, host))


def exception(exc: BaseException, binary: str, ctx: RequestContext | None = None,
              host: str | None = None) -> None:
    notifier.emit(ctx or context.current(), "compute.exception",
                  lambda: ExceptionPayload.from_exception(exc),
                  notifier.publisher_id(binary, host), notifier.ERROR)


def service_update(service: Service, ctx: RequestContext | None = None) -> None:
    """service.update for `service`'s record, at its start or when os-services changed
    it; published in the service's own name wherever it is sent from, as Nova's
    Service.save() publishes it."""
    send("service.update", lambda: ServiceStatusPayload.from_service(service),
         service.binary, ctx, service.host)
