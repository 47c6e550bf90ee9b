"""Schema migrations: `novalite-manage db sync` and the all-in-one's start-up run these.

Alembic is driven from code (no alembic.ini to install or find): the migration scripts
ship inside the package and run on the engine novalite.db.session configures.
"""

from __future__ import annotations

import logging
import os

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from sqlalchemy.engine import Engine

from novalite.db import session

LOG = logging.getLogger(__name__)
SCRIPTS = os.path.join(os.path.dirname(__file__), "migrations")


def _config(connection) -> Config:
    config = Config()
    config.set_main_option("script_location", SCRIPTS)
    config.attributes["connection"] = connection
    return config


def db_sync(version: str = "head", engine: Engine | None = None) -> None:
    """Upgrade to `version`; a database already there is left untouched."""
    engine = engine or session.get_engine()
    before = db_version(engine)
    with engine.begin() as connection:
        command.upgrade(_config(connection), version)
    after = db_version(engine)
    if after != before:
        LOG.info("Database schema upgraded from %s to %s", before or "empty", after)


def db_downgrade(version: str, engine: Engine | None = None) -> None:
    engine = engine or session.get_engine()
    with engine.begin() as connection:
        command.downgrade(_config(connection), version)


def db_version(engine: Engine | None = None) -> str | None:
    with (engine or session.get_engine()).connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()
