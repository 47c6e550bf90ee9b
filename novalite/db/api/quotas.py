"""Quota limits stored per project, per user within a project, and per quota class:
only what was set differs from the defaults ([quota] options)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import bindparam, delete, select

from novalite.db import models
from novalite.db.session import Unit, core_reader, reader, retry_on_deadlock, writer


def _model_and_owner(project_id: str | None, user_id: str | None, class_name: str | None
                     ) -> tuple[Any, dict[str, str | None]]:
    if class_name is not None:
        return models.QuotaClass, {"class_name": class_name}
    if user_id is not None:
        return models.ProjectUserQuota, {"project_id": project_id, "user_id": user_id}
    return models.Quota, {"project_id": project_id}


def _limits_query(model: Any, *owner: str) -> Any:
    return select(model.resource, model.hard_limit).where(
        *(getattr(model, column) == bindparam(column) for column in owner))


# Built once: every boot reads its project's limits twice (its check and its recheck).
_LIMITS = {models.QuotaClass: _limits_query(models.QuotaClass, "class_name"),
           models.Quota: _limits_query(models.Quota, "project_id"),
           models.ProjectUserQuota: _limits_query(models.ProjectUserQuota, "project_id",
                                                  "user_id")}


def _limits(s: Unit, project_id: str | None, user_id: str | None,
            class_name: str | None) -> dict[str, int]:
    model, owner = _model_and_owner(project_id, user_id, class_name)
    return {resource: limit for resource, limit in s.connection().execute(_LIMITS[model],
                                                                          owner)}


def limits_get(project_id: str | None = None, user_id: str | None = None,
               class_name: str | None = None) -> dict[str, int]:
    """The limits set for the project (or the project's user, or the class)."""
    with reader() as s:
        return _limits(s, project_id, user_id, class_name)


def limits_layered(class_name: str, project_id: str | None = None,
                   user_id: str | None = None) -> dict[str, int]:
    """The class's limits overridden by the project's, then by the project user's: one
    transaction, as every boot asks (twice: its check and its recheck)."""
    with core_reader() as s:
        found = _limits(s, None, None, class_name)
        if project_id is not None:
            found.update(_limits(s, project_id, None, None))
            if user_id is not None:
                found.update(_limits(s, project_id, user_id, None))
        return found


@retry_on_deadlock
def limits_set(values: dict[str, int], project_id: str | None = None,
               user_id: str | None = None, class_name: str | None = None) -> None:
    model, owner = _model_and_owner(project_id, user_id, class_name)
    with writer() as s:
        rows = {r.resource: r for r in s.scalars(select(model).filter_by(**owner)
                                                 .with_for_update())}
        for resource, limit in values.items():
            if resource in rows:
                rows[resource].hard_limit = limit
            else:
                s.add(model(**owner, resource=resource, hard_limit=limit))


@retry_on_deadlock
def limits_destroy(project_id: str, user_id: str | None = None) -> None:
    """Back to the defaults: the project's own limits and its users' (or one user's)."""
    with writer() as s:
        users = delete(models.ProjectUserQuota).filter_by(project_id=project_id)
        if user_id is not None:
            s.execute(users.filter_by(user_id=user_id))
            return
        s.execute(users)
        s.execute(delete(models.Quota).filter_by(project_id=project_id))
