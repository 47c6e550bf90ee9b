"""Roles, the roles they imply, and role assignments of users on projects.

Effective roles are the assigned ones plus everything they imply, transitively
(admin ⊃ manager ⊃ member ⊃ reader after bootstrap).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable

from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from novalite.db.models import identity as m
from novalite.db.session import reader, writer
from novalite.identity import exception, token_cache

USER_PROJECT = "UserProject"


def role_dict(row: m.Role) -> dict:
    return {"id": row.id, "name": row.name, "domain_id": None,
            "description": row.description, "options": {}}


def get_role(role_id: str) -> dict:
    with reader() as s:
        row = s.get(m.Role, role_id)
        if row is None:
            raise exception.NotFound(type="role", id=role_id)
        return role_dict(row)


def list_roles(name: str | None = None) -> list[dict]:
    with reader() as s:
        query = select(m.Role).order_by(m.Role.name)
        if name is not None:
            query = query.where(m.Role.name == name)
        return [role_dict(r) for r in s.scalars(query)]


def create_role(name: str, description: str | None = None) -> dict:
    try:
        with writer() as s:
            row = m.Role(id=uuid.uuid4().hex, name=name, description=description)
            s.add(row)
            s.flush()
            return role_dict(row)
    except IntegrityError:
        raise exception.Conflict(type="role",
                                 details=f"Duplicate entry found with name {name}") from None


def update_role(role_id: str, changes: dict) -> dict:
    try:
        with writer() as s:
            row = s.get(m.Role, role_id)
            if row is None:
                raise exception.NotFound(type="role", id=role_id)
            for key in ("name", "description"):
                if key in changes:
                    setattr(row, key, changes[key])
            s.flush()
            return role_dict(row)
    except IntegrityError:
        raise exception.Conflict(
            type="role", details=f"Duplicate entry found with name {changes['name']}") from None


def delete_role(role_id: str) -> None:
    with writer() as s:
        row = s.get(m.Role, role_id)
        if row is None:
            raise exception.NotFound(type="role", id=role_id)
        s.execute(delete(m.Assignment).where(m.Assignment.role_id == role_id))
        s.execute(delete(m.ImpliedRole).where(
            (m.ImpliedRole.prior_role_id == role_id) | (m.ImpliedRole.implied_role_id == role_id)))
        s.delete(row)
    token_cache.clear()


# -- implied roles -------------------------------------------------------------------------

def _implications(s: Session) -> dict[str, set[str]]:
    rules: dict[str, set[str]] = {}
    for prior, implied in s.execute(select(m.ImpliedRole.prior_role_id,
                                           m.ImpliedRole.implied_role_id)):
        rules.setdefault(prior, set()).add(implied)
    return rules


def expand(role_ids: set[str], rules: dict[str, set[str]]) -> set[str]:
    """The roles plus every role they imply, however indirectly (cycles are harmless)."""
    seen: set[str] = set()
    todo = list(role_ids)
    while todo:
        role = todo.pop()
        if role not in seen:
            seen.add(role)
            todo.extend(rules.get(role, ()))
    return seen


def list_implied_roles(prior_role_id: str | None = None) -> list[tuple[dict, dict]]:
    """(prior, implied) role pairs, optionally of one prior role."""
    with reader() as s:
        query = select(m.ImpliedRole)
        if prior_role_id is not None:
            query = query.where(m.ImpliedRole.prior_role_id == prior_role_id)
        roles = {r.id: role_dict(r) for r in s.scalars(select(m.Role))}
        return [(roles[r.prior_role_id], roles[r.implied_role_id]) for r in s.scalars(query)]


def create_implied_role(prior_role_id: str, implied_role_id: str) -> None:
    get_role(prior_role_id)
    get_role(implied_role_id)
    with writer() as s:
        if s.get(m.ImpliedRole, (prior_role_id, implied_role_id)) is None:
            s.add(m.ImpliedRole(prior_role_id=prior_role_id, implied_role_id=implied_role_id))
    token_cache.clear()


def get_implied_role(prior_role_id: str, implied_role_id: str) -> None:
    with reader() as s:
        if s.get(m.ImpliedRole, (prior_role_id, implied_role_id)) is None:
            raise exception.NotFound(type="implied role", id=implied_role_id)


def delete_implied_role(prior_role_id: str, implied_role_id: str) -> None:
    with writer() as s:
        row = s.get(m.ImpliedRole, (prior_role_id, implied_role_id))
        if row is None:
            raise exception.NotFound(type="implied role", id=implied_role_id)
        s.delete(row)
    token_cache.clear()


# -- assignments ---------------------------------------------------------------------------

def add_grant(user_id: str, project_id: str, role_id: str) -> None:
    with writer() as s:
        key = (USER_PROJECT, user_id, project_id, role_id)
        if s.get(m.Assignment, key) is None:
            s.add(m.Assignment(type=USER_PROJECT, actor_id=user_id, target_id=project_id,
                               role_id=role_id))
    token_cache.clear()


def check_grant(user_id: str, project_id: str, role_id: str) -> None:
    with reader() as s:
        if s.get(m.Assignment, (USER_PROJECT, user_id, project_id, role_id)) is None:
            raise exception.RoleAssignmentNotFound(role_id=role_id, actor_id=user_id,
                                                   target_id=project_id)


def remove_grant(user_id: str, project_id: str, role_id: str) -> None:
    with writer() as s:
        row = s.get(m.Assignment, (USER_PROJECT, user_id, project_id, role_id))
        if row is None:
            raise exception.RoleAssignmentNotFound(role_id=role_id, actor_id=user_id,
                                                   target_id=project_id)
        s.delete(row)
    token_cache.clear()


def list_assignments(user_id: str | None = None, project_id: str | None = None,
                     role_id: str | None = None, effective: bool = False) -> list[dict]:
    """{"user_id", "project_id", "role_id"} rows; `effective` adds implied roles (and
    filters on `role_id` after expanding, as Keystone does)."""
    with reader() as s:
        query = select(m.Assignment).where(m.Assignment.type == USER_PROJECT)
        if user_id is not None:
            query = query.where(m.Assignment.actor_id == user_id)
        if project_id is not None:
            query = query.where(m.Assignment.target_id == project_id)
        direct: dict[tuple[str, str], set[str]] = {}
        for row in s.scalars(query):
            direct.setdefault((row.actor_id, row.target_id), set()).add(row.role_id)
        rules = _implications(s) if effective else {}
    rows = []
    for (actor, target), role_ids in sorted(direct.items()):
        for role in sorted(expand(role_ids, rules)):
            if role_id is None or role == role_id:
                rows.append({"user_id": actor, "project_id": target, "role_id": role})
    return rows


def effective_roles(user_id: str, project_id: str) -> list[dict]:
    """The roles a user holds on a project, implied ones included, by name."""
    with reader() as s:
        direct = set(s.scalars(select(m.Assignment.role_id).where(
            m.Assignment.type == USER_PROJECT, m.Assignment.actor_id == user_id,
            m.Assignment.target_id == project_id)))
        role_ids = expand(direct, _implications(s)) if direct else set()
        rows: Iterable[m.Role] = (
            s.scalars(select(m.Role).where(m.Role.id.in_(role_ids))) if role_ids else [])
        return sorted((role_dict(r) for r in rows), key=lambda r: r["name"])


def projects_of_user(user_id: str) -> list[str]:
    with reader() as s:
        return sorted(set(s.scalars(select(m.Assignment.target_id).where(
            m.Assignment.type == USER_PROJECT, m.Assignment.actor_id == user_id))))
