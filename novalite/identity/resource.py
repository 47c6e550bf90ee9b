"""Domains and projects."""

from __future__ import annotations

import uuid

from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError

from novalite.db.models import identity as m
from novalite.db.session import reader, writer
from novalite.identity import exception, token_cache

DEFAULT_DOMAIN_ID = "default"


def domain_dict(row: m.Domain) -> dict:
    return {"id": row.id, "name": row.name, "description": row.description or "",
            "enabled": row.enabled}


def project_dict(row: m.Project) -> dict:
    return {"id": row.id, "name": row.name, "domain_id": row.domain_id,
            "description": row.description or "", "enabled": row.enabled,
            "is_domain": False, "parent_id": row.domain_id}


def get_domain(domain_id: str) -> dict:
    with reader() as s:
        row = s.get(m.Domain, domain_id)
        if row is None:
            raise exception.NotFound(type="domain", id=domain_id)
        return domain_dict(row)


def get_domain_by_name(name: str) -> dict:
    with reader() as s:
        row = s.scalars(select(m.Domain).where(m.Domain.name == name)).first()
        if row is None:
            raise exception.NotFound(type="domain", id=name)
        return domain_dict(row)


def list_domains(name: str | None = None) -> list[dict]:
    with reader() as s:
        query = select(m.Domain).order_by(m.Domain.name)
        if name is not None:
            query = query.where(m.Domain.name == name)
        return [domain_dict(r) for r in s.scalars(query)]


def create_domain(name: str, description: str = "", enabled: bool = True,
                  domain_id: str | None = None) -> dict:
    try:
        with writer() as s:
            row = m.Domain(id=domain_id or uuid.uuid4().hex, name=name,
                           description=description, enabled=enabled)
            s.add(row)
            s.flush()
            return domain_dict(row)
    except IntegrityError:
        raise exception.Conflict(type="domain",
                                 details=f"Duplicate entry found with name {name}") from None


def get_project(project_id: str) -> dict:
    with reader() as s:
        row = s.get(m.Project, project_id)
        if row is None:
            raise exception.NotFound(type="project", id=project_id)
        return project_dict(row)


def get_project_by_name(name: str, domain_id: str) -> dict:
    with reader() as s:
        row = s.scalars(select(m.Project).where(m.Project.name == name,
                                                m.Project.domain_id == domain_id)).first()
        if row is None:
            raise exception.NotFound(type="project", id=name)
        return project_dict(row)


def list_projects(name: str | None = None, domain_id: str | None = None,
                  enabled: bool | None = None, ids: list[str] | None = None) -> list[dict]:
    with reader() as s:
        query = select(m.Project).order_by(m.Project.name)
        if name is not None:
            query = query.where(m.Project.name == name)
        if domain_id is not None:
            query = query.where(m.Project.domain_id == domain_id)
        if enabled is not None:
            query = query.where(m.Project.enabled == enabled)
        if ids is not None:
            query = query.where(m.Project.id.in_(ids))
        return [project_dict(r) for r in s.scalars(query)]


def _project_conflict(name: str) -> exception.Conflict:
    return exception.Conflict(
        type="project", details="it is not permitted to have two projects with either the "
        f"same name or same id in the same domain: name is {name}")


def create_project(name: str, domain_id: str = DEFAULT_DOMAIN_ID, description: str = "",
                   enabled: bool = True, project_id: str | None = None) -> dict:
    get_domain(domain_id)
    try:
        with writer() as s:
            row = m.Project(id=project_id or uuid.uuid4().hex, name=name,
                            domain_id=domain_id, description=description, enabled=enabled)
            s.add(row)
            s.flush()
            return project_dict(row)
    except IntegrityError:
        raise _project_conflict(name) from None


def update_project(project_id: str, changes: dict) -> dict:
    try:
        with writer() as s:
            row = s.get(m.Project, project_id)
            if row is None:
                raise exception.NotFound(type="project", id=project_id)
            for key in ("name", "description", "enabled"):
                if key in changes:
                    setattr(row, key, changes[key])
            s.flush()
            result = project_dict(row)
    except IntegrityError:
        raise _project_conflict(changes.get("name", "")) from None
    token_cache.clear()
    return result


def delete_project(project_id: str) -> None:
    with writer() as s:
        row = s.get(m.Project, project_id)
        if row is None:
            raise exception.NotFound(type="project", id=project_id)
        s.execute(delete(m.Assignment).where(m.Assignment.target_id == project_id))
        s.delete(row)
    token_cache.clear()

