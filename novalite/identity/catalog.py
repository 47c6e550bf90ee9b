"""The service catalog: regions, services and their endpoints, and the token's view of it."""

from __future__ import annotations

import uuid

from sqlalchemy import select

from novalite.db.models import identity as m
from novalite.db.session import reader, writer
from novalite.identity import exception


def region_dict(row: m.Region) -> dict:
    return {"id": row.id, "description": row.description,
            "parent_region_id": row.parent_region_id}


def service_dict(row: m.CatalogService) -> dict:
    return {"id": row.id, "type": row.type, "name": row.name,
            "description": row.description or "", "enabled": row.enabled}


def endpoint_dict(row: m.Endpoint) -> dict:
    return {"id": row.id, "service_id": row.service_id, "interface": row.interface,
            "url": row.url, "region_id": row.region_id, "region": row.region_id,
            "enabled": row.enabled}


def list_regions() -> list[dict]:
    with reader() as s:
        return [region_dict(r) for r in s.scalars(select(m.Region).order_by(m.Region.id))]


def get_region(region_id: str) -> dict:
    with reader() as s:
        row = s.get(m.Region, region_id)
        if row is None:
            raise exception.NotFound(type="region", id=region_id)
        return region_dict(row)


def list_services(type_: str | None = None, name: str | None = None) -> list[dict]:
    with reader() as s:
        query = select(m.CatalogService).order_by(m.CatalogService.type)
        if type_ is not None:
            query = query.where(m.CatalogService.type == type_)
        if name is not None:
            query = query.where(m.CatalogService.name == name)
        return [service_dict(r) for r in s.scalars(query)]


def get_service(service_id: str) -> dict:
    with reader() as s:
        row = s.get(m.CatalogService, service_id)
        if row is None:
            raise exception.NotFound(type="service", id=service_id)
        return service_dict(row)


def list_endpoints(service_id: str | None = None, interface: str | None = None,
                   region_id: str | None = None) -> list[dict]:
    with reader() as s:
        query = select(m.Endpoint).order_by(m.Endpoint.service_id, m.Endpoint.interface)
        for column, value in ((m.Endpoint.service_id, service_id),
                              (m.Endpoint.interface, interface),
                              (m.Endpoint.region_id, region_id)):
            if value is not None:
                query = query.where(column == value)
        return [endpoint_dict(r) for r in s.scalars(query)]


def get_endpoint(endpoint_id: str) -> dict:
    with reader() as s:
        row = s.get(m.Endpoint, endpoint_id)
        if row is None:
            raise exception.NotFound(type="endpoint", id=endpoint_id)
        return endpoint_dict(row)


def ensure_region(region_id: str) -> None:
    with writer() as s:
        if s.get(m.Region, region_id) is None:
            s.add(m.Region(id=region_id, description=""))


def ensure_service(type_: str, name: str, endpoints: dict[str, str], region_id: str) -> None:
    """Create the service if missing and set its endpoints per interface to these URLs
    (bootstrap runs again when the cloud's address changes)."""
    with writer() as s:
        service = s.scalars(select(m.CatalogService).where(
            m.CatalogService.type == type_, m.CatalogService.name == name)).first()
        if service is None:
            service = m.CatalogService(id=uuid.uuid4().hex, type=type_, name=name,
                                       enabled=True)
            s.add(service)
            s.flush()
        existing = {e.interface: e for e in s.scalars(select(m.Endpoint).where(
            m.Endpoint.service_id == service.id, m.Endpoint.region_id == region_id))}
        for interface, url in endpoints.items():
            if interface in existing:
                existing[interface].url = url
            else:
                s.add(m.Endpoint(id=uuid.uuid4().hex, service_id=service.id,
                                 interface=interface, url=url, region_id=region_id,
                                 enabled=True))


def token_catalog() -> list[dict]:
    """The catalog as tokens carry it: enabled services with their enabled endpoints."""
    with reader() as s:
        services = [service_dict(r) for r in s.scalars(
            select(m.CatalogService).where(m.CatalogService.enabled)
            .order_by(m.CatalogService.type))]
        endpoints = [endpoint_dict(r) for r in s.scalars(
            select(m.Endpoint).where(m.Endpoint.enabled).order_by(m.Endpoint.interface))]
    by_service: dict[str, list[dict]] = {}
    for ep in endpoints:
        by_service.setdefault(ep["service_id"], []).append(
            {key: ep[key] for key in ("id", "interface", "region_id", "region", "url")})
    return [{"id": svc["id"], "type": svc["type"], "name": svc["name"],
             "endpoints": by_service.get(svc["id"], [])} for svc in services]
