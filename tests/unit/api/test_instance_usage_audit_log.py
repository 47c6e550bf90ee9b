"""The audit period os-instance_usage_audit_log reports: the last whole month."""

import datetime

import pytest

from novalite.api.compute.instance_usage_audit_log import last_completed_period


@pytest.mark.parametrize(("before", "begin", "end"), [
    ("2026-01-01 00:00:00", "2025-11-01 00:00:00", "2025-12-01 00:00:00"),
    ("2026-01-01 00:00:01", "2025-12-01 00:00:00", "2026-01-01 00:00:00"),
    ("2026-03-31 23:59:59", "2026-02-01 00:00:00", "2026-03-01 00:00:00"),
])
def test_the_last_completed_month(before, begin, end):

    found = last_completed_period(datetime.datetime.fromisoformat(before))
    assert tuple(str(d) for d in found) == (begin, end)
