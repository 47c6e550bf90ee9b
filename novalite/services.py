"""How each service is assembled: its binary name, RPC topic, manager and records."""

from __future__ import annotations

from novalite.service import DBServiceRecords, Service


def conductor(host: str | None = None) -> Service:
    from novalite.conductor.manager import ConductorManager
    from novalite.conf import CONF

    return Service("novalite-conductor", "conductor", ConductorManager(host or CONF.host),
                   DBServiceRecords(), host)


def scheduler(host: str | None = None) -> Service:
    from novalite.conf import CONF
    from novalite.scheduler.manager import SchedulerManager

    return Service("novalite-scheduler", "scheduler", SchedulerManager(host or CONF.host),
                   DBServiceRecords(), host)


def compute(host: str | None = None) -> Service:
    from novalite.compute.manager import ComputeManager
    from novalite.conductor.rpcapi import ConductorServiceRecords
    from novalite.conf import CONF

    host = host or CONF.host
    return Service("novalite-compute", "compute", ComputeManager(host),
                   ConductorServiceRecords(), host)


def api(host: str | None = None) -> Service:
    """The API's own service record and heartbeat (it serves HTTP, not RPC)."""
    from novalite.conf import CONF
    from novalite.manager import Manager

    return Service("novalite-api", None, Manager(host or CONF.host), DBServiceRecords(), host)
