"""How the network service writes: a whole request's work in one transaction, run again
from the top when it lost a race that the database caught (a duplicate key on an address,
a MAC or a segmentation id; a deadlock), as Neutron's `retry_if_session_inactive` does.
A retried request reads afresh, so it sees what the winner took and picks something else,
or answers the conflict if the caller asked for exactly that value."""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable
from typing import Any, TypeVar

from sqlalchemy import event
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from novalite.db import session
from novalite.network import ipam, nova_notifier

LOG = logging.getLogger(__name__)
T = TypeVar("T")
ATTEMPTS = 20
_listeners: list[Callable[[], None]] = []


def on_commit(listener: Callable[[], None], remove: bool = False) -> None:
    """Call `listener` after every write this process commits (the DHCP agent wakes on
    it); it must be quick and never raise."""
    if remove:
        _listeners.remove(listener)
    else:
        _listeners.append(listener)


def write(work: Callable[[Session], T]) -> T:
    """`work(session)` committed, retried while a concurrent writer took what it chose."""
    for attempt in range(ATTEMPTS):
        try:
            result: T = session.retry_on_deadlock(_once)(work)
            return result
        except IntegrityError as exc:
            if attempt == ATTEMPTS - 1:
                raise
            LOG.debug("Retrying a network write after a duplicate: %s", exc.orig)
            time.sleep(min(0.2, 0.002 * 2**attempt) * random.uniform(0.5, 1.5))
    raise AssertionError("unreachable")


def read(work: Callable[[Session], T]) -> T:
    with session.reader() as s:
        _keep_loaded(s)
        return work(s)


def _keep_loaded(s: Session) -> None:
    """Keep every row the request loads until it ends. The session holds rows weakly, so
    one the request looks up twice (a port's network: for the policy target, then for
    the port) would be read from the database twice."""
    s.info["loaded"] = []


@event.listens_for(Session, "loaded_as_persistent")
def _loaded(s: Session, row: Any) -> None:
    """One listener for every session rather than one added per request's session (a
    hundredth of a port create); only the network service's sessions keep their rows."""
    loaded = s.info.get("loaded")
    if loaded is not None:
        loaded.append(row)


def _once(work: Callable[[Session], T]) -> T:
    with session.writer() as s:
        _keep_loaded(s)
        result = work(s)
        s.flush()  # a duplicate surfaces here, inside the retried unit
        events = s.info.pop("nova_events", [])
        freed = ipam.freeing(s)
    if freed:
        ipam.HINTS.forget()
    nova_notifier.send(events)  # committed: compute may now read what changed
    for listener in list(_listeners):
        listener()
    return result
