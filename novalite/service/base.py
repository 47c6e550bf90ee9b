"""A service: a manager served over RPC, with a heartbeat and periodic tasks.

Services with database access (api, conductor, scheduler) record their heartbeat in the
database directly; compute services have none and go through the conductor, as in Nova.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
import traceback
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Protocol

from novalite import periodic
from novalite.conf import CONF
from novalite.notifications import events, notifier
from novalite.objects.service import Service as ServiceRecord
from novalite.rpc import RPCServer, Target, get_transport
from novalite.service import heartbeats
from novalite.service.manager import Manager

LOG = logging.getLogger(__name__)


class ServiceRecords(heartbeats.Records, Protocol):
    def get_or_create(self, hosts: list[str], binary: str, topic: str | None
                      ) -> list[ServiceRecord]:
        """The record of each of `hosts`, in their order, created where there is none."""
        ...


class DBServiceRecords:
    def get_or_create(self, hosts: list[str], binary: str, topic: str | None
                      ) -> list[ServiceRecord]:
        from novalite.db.api import services

        return services.service_get_or_create_many(hosts, binary, topic)

    def heartbeat(self, service_ids: list[int]) -> list[int]:
        from novalite.db.api import services

        return services.service_heartbeat(service_ids)


class Service:
    def __init__(
        self,
        binary: str,
        topic: str | None,
        manager: Manager,
        records: ServiceRecords,
        host: str | None = None,
    ) -> None:
        self.binary = binary
        self.topic = topic
        self.host = host or CONF.host
        self.manager = manager
        self.records = records
        self.record: ServiceRecord | None = None
        self.rpcserver: RPCServer | None = None
        self.periodic = periodic.PeriodicRunner(manager, f"{binary}-{self.host}", group=binary)
        self._beating: heartbeats.Beating | None = None

    def start(self) -> None:
        self._register()
        self.manager.pre_start_hook()
        self._serve()

    def _register(self, record: ServiceRecord | None = None) -> None:
        """Recover, then register (`record`: this service's, when start_together
        registered it already)."""
        LOG.info("Starting %s on host %s", self.binary, self.host)
        notifier.check_config()  # an unknown notification driver is refused here
        self.manager.init_host()
        self.record = record or self.records.get_or_create([self.host], self.binary,
                                                           self.topic)[0]
        self.manager.service_id = self.record.id
        self.manager.service_disabled = self.record.disabled
        self.manager.service_new = self.record.report_count == 0

    def _serve(self) -> None:
        """Take RPCs, beat and run periodic tasks (pre_start_hook has run)."""
        assert self.record is not None
        if self.topic:
            transport = get_transport(CONF.transport_url)
            endpoints = [self.manager, *getattr(self.manager, "additional_endpoints", [])]
            self.rpcserver = RPCServer(transport, Target(topic=self.topic, server=self.host),
                                       endpoints, CONF.executor_thread_pool_size)
            self.rpcserver.start()
        self._beating = heartbeats.Beating(self.records, self.record.id, self.binary,
                                           self.host)
        heartbeats.of(self.records).add(self._beating)
        self.periodic.start()
        self.manager.post_start_hook()
        events.service_update(self.record)  # as Nova's services announce their start
        LOG.info("Started %s on host %s (service %d)", self.binary, self.host, self.record.id)

    def stop(self) -> None:
        """Stop taking work, let in-flight RPCs finish, then stop background threads."""
        LOG.info("Stopping %s on host %s", self.binary, self.host)
        if self.rpcserver:
            self.rpcserver.stop()
            if not self.rpcserver.wait(CONF.graceful_shutdown_timeout):
                LOG.warning("%s on %s stopped with RPCs still running after %ss",
                            self.binary, self.host, CONF.graceful_shutdown_timeout)
        if self._beating:
            heartbeats.of(self.records).remove(self._beating)
        self.periodic.stop()
        self.manager.cleanup_host()


# Services registered and prepared per call of start_together.
_START_CHUNK = 500


def start_together(services: list[Service]) -> None:
    """Start services of one binary, on as many hosts, whose records are of one kind (the
    simulated hosts of one compute process), a few hundred at a time: their records
    in one call, what their managers read and write at start in a few
    (Manager.prefetch_start, Manager.pre_start_together), rather than each its own.
    Started one by one, 10,000 hosts took 100 s, most of it in a dozen small reads and
    writes per host."""
    for start in range(0, len(services), _START_CHUNK):
        chunk = services[start:start + _START_CHUNK]
        first, managers = chunk[0], [svc.manager for svc in chunk]
        records = first.records.get_or_create([svc.host for svc in chunk], first.binary,
                                              first.topic)
        type(first.manager).prefetch_start(managers)
        for svc, record in zip(chunk, records, strict=True):
            svc._register(record)
        type(first.manager).pre_start_together(managers)
        for svc in chunk:
            svc._serve()


def run_until_signalled(services: list[Service]) -> None:
    """Start services, block until SIGTERM/SIGINT, then stop them gracefully."""
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    for svc in services:
        svc.start()
    while not stop.wait(1):  # a handler runs in this thread, and only once it wakes:
        pass  # the kernel may give the signal to another thread, which does not wake it
    exit_deadline(CONF.graceful_shutdown_timeout)
    for svc in reversed(services):
        svc.stop()


def exit_deadline(timeout: float, exit_now: Callable[[int], object] = os._exit) -> None:
    """Make the process exit at once `timeout` seconds from now (0: no limit), as
    oslo.service's graceful_shutdown_timeout: work that waits on a service already gone
    (a call to a conductor stopped with it) must not hold the stop for good. The timer is
    a daemon and is never cancelled: after the services stop, the interpreter's exit
    still waits for the threads that are not daemons (an RPC executor's worker on a
    message that outlived the stop), and that wait is bounded by the same deadline."""
    if timeout <= 0:
        return

    def overdue() -> None:
        LOG.error("Graceful shutdown timeout (%ss) exceeded; exiting now. Still running: %s",
                  timeout, "; ".join(_running_threads()) or "nothing")
        exit_now(1)

    timer = threading.Timer(timeout, overdue)
    timer.daemon = True
    timer.start()


def _running_threads() -> list[str]:
    """Each thread the exit waits for (and the main thread), with where it is."""
    frames = sys._current_frames()
    return [f"{thread.name} at {_where(frames.get(thread.ident or 0))}"
            for thread in threading.enumerate()
            if not thread.daemon and thread.ident in frames]


def _where(frame: FrameType | None) -> str:
    """The innermost frames, innermost first."""
    if frame is None:
        return "?"
    stack = traceback.extract_stack(frame)[-4:]
    return " < ".join(f"{Path(s.filename).name}:{s.lineno} {s.name}" for s in reversed(stack))
