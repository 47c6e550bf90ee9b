"""Users and their passwords."""

from __future__ import annotations

import uuid

from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError

from novalite.db.models import identity as m
from novalite.db.session import reader, writer
from novalite.identity import exception, password_hashing, resource, revocation, token_cache


def user_dict(row: m.User) -> dict:
    user = {"id": row.id, "name": row.name, "domain_id": row.domain_id,
            "enabled": row.enabled, "password_expires_at": None, "options": {}}
    for key in ("default_project_id", "description", "email"):
        if getattr(row, key) is not None:
            user[key] = getattr(row, key)
    return user


def get_user(user_id: str) -> dict:
    with reader() as s:
        row = s.get(m.User, user_id)
        if row is None:
            raise exception.NotFound(type="user", id=user_id)
        return user_dict(row)


def get_user_by_name(name: str, domain_id: str) -> dict:
    with reader() as s:
        row = s.scalars(select(m.User).where(m.User.name == name,
                                             m.User.domain_id == domain_id)).first()
        if row is None:
            raise exception.NotFound(type="user", id=name)
        return user_dict(row)


def list_users(name: str | None = None, domain_id: str | None = None,
               enabled: bool | None = None) -> list[dict]:
    with reader() as s:
        query = select(m.User).order_by(m.User.name)
        if name is not None:
            query = query.where(m.User.name == name)
        if domain_id is not None:
            query = query.where(m.User.domain_id == domain_id)
        if enabled is not None:
            query = query.where(m.User.enabled == enabled)
        return [user_dict(r) for r in s.scalars(query)]


def _conflict(name: str, domain_id: str) -> exception.Conflict:
    return exception.Conflict(
        type="user", details=f"Duplicate entry found with name {name} at domain ID "
        f"{domain_id}")


_FIELDS = ("name", "enabled", "default_project_id", "description", "email")


def create_user(name: str, domain_id: str = resource.DEFAULT_DOMAIN_ID,
                password: str | None = None, **fields) -> dict:
    resource.get_domain(domain_id)
    hashed = password_hashing.hash_password(password) if password is not None else None
    try:
        with writer() as s:
            row = m.User(id=uuid.uuid4().hex, name=name, domain_id=domain_id,
                         password_hash=hashed,
                         **{k: v for k, v in fields.items() if k in _FIELDS})
            s.add(row)
            s.flush()
            return user_dict(row)
    except IntegrityError:
        raise _conflict(name, domain_id) from None


def update_user(user_id: str, changes: dict) -> dict:
    """A new password revokes the user's existing tokens, as Keystone does."""
    hashed = (password_hashing.hash_password(changes["password"])
              if changes.get("password") is not None else None)
    try:
        with writer() as s:
            row = s.get(m.User, user_id)
            if row is None:
                raise exception.NotFound(type="user", id=user_id)
            for key in _FIELDS:
                if key in changes:
                    setattr(row, key, changes[key])
            if hashed:
                row.password_hash = hashed
            s.flush()
            result = user_dict(row)
    except IntegrityError:
        raise _conflict(changes.get("name", ""), "") from None
    if hashed:
        revocation.revoke_user(user_id)
    token_cache.clear()
    return result


def delete_user(user_id: str) -> None:
    with writer() as s:
        row = s.get(m.User, user_id)
        if row is None:
            raise exception.NotFound(type="user", id=user_id)
        s.execute(delete(m.Assignment).where(m.Assignment.actor_id == user_id))
        s.delete(row)
    token_cache.clear()


def authenticate(user_id: str | None, name: str | None, domain_id: str | None,
                 password: str) -> dict:
    """The user whose password this is; 401 for an unknown user, a wrong password or a
    disabled user or domain (one answer for all, as Keystone)."""
    with reader() as s:
        if user_id is not None:
            row = s.get(m.User, user_id)
        else:
            row = s.scalars(select(m.User).where(m.User.name == name,
                                                 m.User.domain_id == domain_id)).first()
        user = user_dict(row) if row is not None else None
        hashed = row.password_hash if row is not None else password_hashing.dummy_hash()
        domain = s.get(m.Domain, row.domain_id) if row is not None else None
        usable = user is not None and user["enabled"] and domain is not None and domain.enabled
    if not password_hashing.check_password(password, hashed) or not usable or user is None:
        raise exception.Unauthorized()
    return user


def password_matches(user_id: str, password: str) -> bool:
    with reader() as s:
        row = s.get(m.User, user_id)
        return row is not None and password_hashing.check_password(password,
                                                                    row.password_hash)
