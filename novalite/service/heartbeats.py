"""Heartbeats: the services of a process whose records are of one kind (the database's,
the conductor's) report together, from one thread and in one call.

A thread and a call per service gave an idle all-in-one simulating 500 hosts 1,011
threads and a quarter of a core of work, about half of it heartbeats (50 calls a
second, each its own transaction); 10,000 hosts would have needed more than the machine
had. Beating together changes nothing a reader of the records sees: each live service's
record is renewed every report_interval. Each kind has its own thread, so a conductor
that does not answer delays only the beats that go through it.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Protocol

from novalite import context
from novalite.conf import CONF

LOG = logging.getLogger(__name__)


class Records(Protocol):
    def heartbeat(self, service_ids: list[int]) -> list[int]:
        """Renew these services' records; the ids of those that have none."""
        ...


class Beating:
    """A service that beats: its record's id and whom to ask to renew it."""

    def __init__(self, records: Records, service_id: int, binary: str, host: str) -> None:
        self.records = records
        self.service_id = service_id
        self.binary = binary
        self.host = host


class Heartbeats:
    """The beats of one kind of records; records of one class are interchangeable, so a
    beat goes through any member's."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._changed = threading.Condition()
        self._members: set[Beating] = set()
        self._thread: threading.Thread | None = None

    def add(self, member: Beating) -> None:
        with self._changed:
            self._members.add(member)
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, daemon=True,
                                                name=f"heartbeats-{self.kind}")
                self._thread.start()
            self._changed.notify()  # report_interval may have changed meanwhile

    def remove(self, member: Beating) -> None:
        with self._changed:
            self._members.discard(member)
            self._changed.notify()

    def _loop(self) -> None:
        token = context.get_admin_context().activate()
        last = time.monotonic()
        try:
            while True:
                with self._changed:
                    while self._members and (
                            wait := last + CONF.report_interval - time.monotonic()) > 0:
                        self._changed.wait(wait)
                    if not self._members:
                        self._thread = None  # the next add starts another
                        return
                    batch = list(self._members)
                last = time.monotonic()
                self._beat(batch)
        finally:
            context.reset(token)

    @staticmethod
    def _beat(batch: list[Beating]) -> None:
        try:
            missing = set(batch[0].records.heartbeat([m.service_id for m in batch]))
        except Exception as exc:  # keep beating; say why not
            failed, why = batch, str(exc)
        else:
            failed = [m for m in batch if m.service_id in missing]
            why = "its service record is gone"
        for member in failed:
            LOG.error("%s on %s could not report its state: %s. It will look down to the "
                      "others until this succeeds.", member.binary, member.host, why)


_OF_KIND: dict[type, Heartbeats] = {}
_OF_KIND_LOCK = threading.Lock()


def of(records: Records) -> Heartbeats:
    """The beats of the kind of `records`."""
    with _OF_KIND_LOCK:
        kind = type(records)
        return _OF_KIND.setdefault(kind, Heartbeats(kind.__name__))
