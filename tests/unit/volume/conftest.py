"""The volume service's SQL also runs on each backend (fixture `backend_db`)."""

from tests.unit.db.conftest import backend_db, backend_url  # noqa: F401 (fixtures)
