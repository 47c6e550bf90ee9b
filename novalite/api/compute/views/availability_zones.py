"""Availability zone views (os-availability-zone): Nova's names and nesting."""

from __future__ import annotations

from novalite.api.compute.views.aggregates import timestamp
from novalite.objects.service import Service


def zone(name: str, available: bool, hosts: dict | None = None) -> dict:
    return {"zoneName": name, "zoneState": {"available": available}, "hosts": hosts}


def service(svc: Service, alive: bool) -> dict:
    return {"available": alive, "active": not svc.disabled,
            "updated_at": timestamp(svc.updated_at)}
