"""Alembic's entry point.

novalite.db.migration hands over an open connection (config.attributes["connection"]) so
the migration runs inside the transaction and lock it holds. Without one (a developer's
`alembic.command.revision(..., autogenerate=True)`), the database is the configured one,
as the services would open it; offline mode (`--sql`) renders the SQL for that URL.
"""

from __future__ import annotations

import logging
from typing import Any

from alembic import context
from alembic.runtime.migration import MigrationInfo
from alembic.script import Script
from sqlalchemy.engine import Connection, make_url

from novalite.db import models, session

LOG = logging.getLogger("novalite.db.migration")


def _log_step(*, step: MigrationInfo, **_kw: Any) -> None:
    """Alembic's own logger is quietened (novalite.log); operators still see each step."""
    if step.is_upgrade:
        revision = step.up_revision
        # the docstring's first paragraph
        title = " ".join(revision.doc.split()) if isinstance(revision, Script) else ""
        LOG.info("Upgraded the database schema to %s%s", step.up_revision_id,
                 f" ({title})" if title else "")
    else:
        LOG.info("Downgraded the database schema from %s to %s", step.up_revision_id,
                 ", ".join(step.down_revision_ids) or "base (empty)")


def _options(dialect: str) -> dict[str, Any]:
    return {
        "target_metadata": models.Base.metadata,
        # SQLite alters a table by copying it; batch mode does that for later migrations.
        "render_as_batch": dialect == "sqlite",
        "compare_type": True,
        "on_version_apply": _log_step,
    }


def _run_online(connection: Connection) -> None:
    context.configure(connection=connection, **_options(connection.dialect.name))
    with context.begin_transaction():
        context.run_migrations()


def run_migrations() -> None:
    if context.is_offline_mode():
        url = session.connection_url()
        context.configure(url=url, literal_binds=True, **_options(make_url(url).get_backend_name()))
        with context.begin_transaction():
            context.run_migrations()
        return
    connection = context.config.attributes.get("connection")
    if connection is not None:
        _run_online(connection)
        return
    engine = session.make_engine(session.connection_url())
    try:
        with engine.connect() as connection:
            _run_online(connection)
    finally:
        engine.dispose()


run_migrations()
