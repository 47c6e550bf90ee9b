"""Availability zones as Nova derives them: a compute service is in the zone of its
host's aggregates (the default zone when none has one); every other service is in the
internal zone. A zone is available when an enabled service is in it."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from novalite.conf import CONF
from novalite.db.api import aggregates, services
from novalite.objects.service import Service

COMPUTE_TOPIC = "compute"


def zone_of(service: Service, host_zones: dict[str, set[str]]) -> str:
    if service.topic != COMPUTE_TOPIC:
        return CONF.internal_service_availability_zone
    return ",".join(sorted(host_zones.get(service.host, ()))) or \
        CONF.default_availability_zone


def compute_host_zone(host: str) -> str:
    """The zone of a compute host (the default zone when no aggregate names one)."""
    return ",".join(sorted(host_zones().get(host, ()))) or CONF.default_availability_zone


def host_zones() -> dict[str, set[str]]:
    """The zones each host's aggregates name."""
    zones: dict[str, set[str]] = defaultdict(set)
    for agg in aggregates.aggregate_get_all():
        if zone := agg.availability_zone:
            for host in agg.hosts:
                zones[host].add(zone)
    return zones


def services_with_zones() -> list[tuple[Service, str]]:
    """Every live service record with its zone."""
    by_host = host_zones()
    return [(svc, zone_of(svc, by_host)) for svc in services.service_get_all()]


def split(zoned: Iterable[tuple[Service, str]]) -> tuple[list[str], list[str]]:
    """(available zones, unavailable zones), each sorted: a zone with an enabled service
    is available; one whose services are all disabled is not."""
    available: set[str] = set()
    unavailable: set[str] = set()
    for svc, zone in zoned:
        (unavailable if svc.disabled else available).add(zone)
    return sorted(available), sorted(unavailable - available)
