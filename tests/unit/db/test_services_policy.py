"""The one policy for a missing service: skip with the command to start it; under CI, fail."""

import pytest

from tests import services


def test_a_missing_service_skips_outside_ci_and_fails_under_ci(monkeypatch):
    monkeypatch.setitem(services.PORTS, "PostgreSQL", 1)  # nothing listens on port 1
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="start it with: pg_ctlcluster"):
        services.require_postgresql()
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="PostgreSQL is not reachable"):
        services.require_postgresql()
