"""The build task's rollback: a scheduler that timed out may still claim, so the instance
is put in ERROR before its claims are freed (the scheduler frees a later claim itself when
it finds the instance in ERROR)."""

import pytest

from novalite import exception
from novalite.conductor.tasks import build
from novalite.context import get_admin_context
from novalite.db.api.build_progress import BuildProgress
from novalite.objects import states
from tests import builders

NEW = BuildProgress(states.BUILDING, states.SCHEDULING, None, None, None, None)


class TimedOutScheduler:
    def select_destinations(self, ctx, spec, uuids, return_alternates):
        raise exception.NovaliteException("select_destinations timed out")


def test_a_failed_schedule_buries_before_it_frees(monkeypatch):
    monkeypatch.setattr(build.build_resume, "progress", lambda uuids: {"i1": NEW})
    calls = []
    monkeypatch.setattr(build.build_progress, "taken", lambda *a, **k: None)
    monkeypatch.setattr(build.server_groups, "setup_instance_group", lambda spec: None)
    monkeypatch.setattr(build, "bury", lambda ctx, uuid, exc, event, **guard: not calls.append(
        ("bury", uuid)))
    monkeypatch.setattr(build.placement_client, "free_allocations",
                        lambda ctx, uuid: calls.append(("free", uuid)))
    task = build.ScheduleAndBuildTask(get_admin_context(), builders.request_spec(),
                                      ["i1"], TimedOutScheduler(), None)
    with pytest.raises(exception.NovaliteException):
        task.execute()
    assert calls == [("bury", "i1"), ("free", "i1")]
