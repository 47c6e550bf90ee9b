"""How each service is assembled: its binary name, RPC topic, manager and records.

Each manager is imported inside its own function, on purpose: a process loads only the
service it runs, so novalite-compute never imports the conductor's database layer or the
scheduler's numpy engine (and their start-up cost and dependencies), and only the
all-in-one loads them all."""

from __future__ import annotations

from novalite.conf import CONF
from novalite.service.base import DBServiceRecords, Service


def conductor(host: str | None = None) -> Service:
    from novalite.conductor.manager import ConductorManager

    return Service("novalite-conductor", "conductor", ConductorManager(host or CONF.host),
                   DBServiceRecords(), host)


def scheduler(host: str | None = None) -> Service:
    from novalite.scheduler.manager import SchedulerManager

    return Service("novalite-scheduler", "scheduler", SchedulerManager(host or CONF.host),
                   DBServiceRecords(), host)


def compute(host: str | None = None, driver_args: dict[str, str] | None = None) -> Service:
    from novalite.compute.manager import ComputeManager
    from novalite.conductor.rpcapi import ConductorServiceRecords

    host = host or CONF.host
    return Service("novalite-compute", "compute", ComputeManager(host, driver_args=driver_args),
                   ConductorServiceRecords(), host)


def api(host: str | None = None) -> Service:
    """The API's own service record and heartbeat (it serves HTTP, not RPC); at start it
    sends on the builds a predecessor saved and did not send."""
    from novalite.compute.api_manager import ApiManager

    return Service("novalite-api", None, ApiManager(host or CONF.host), DBServiceRecords(),
                   host)


def volume(host: str | None = None) -> Service:
    """The volume manager of this host's backend (Cinder's cinder-volume)."""
    from novalite.volume.manager import VolumeManager
    from novalite.volume.rpcapi import BINARY, TOPIC

    return Service(BINARY, TOPIC, VolumeManager(host or CONF.host),
                   DBServiceRecords(), host)
