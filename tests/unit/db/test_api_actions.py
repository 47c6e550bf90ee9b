"""Instance actions and their events on each real database: an event starts and ends
in its request's action, an error marks the action, an event ended without a start is
recorded, and another request's action is never touched."""


from novalite import context
from novalite.db import session
from novalite.db.api import actions

UUID = "5f0e7a43-8d1c-4a47-9a4c-0d6f5c0d9e01"


def _ctx(request_id: str) -> context.RequestContext:
    return context.RequestContext(user_id="u1", project_id="p1", request_id=request_id)


def _action(request_id: str) -> dict:
    (found,) = [a for a in actions.actions_get(UUID) if a["request_id"] == request_id]
    return found


def test_an_event_starts_and_ends_in_its_requests_action(backend_db):
    first, second = _ctx("req-1"), _ctx("req-2")
    actions.action_start(first, UUID, "attach_volume")
    actions.action_start(second, UUID, "detach_volume")
    actions.action_event_start(first, UUID, "compute_attach_volume", "host1")
    assert actions.event_open(first, UUID, "compute_attach_volume")
    assert not actions.event_open(second, UUID, "compute_attach_volume")
    actions.action_event_finish(first, UUID, "compute_attach_volume")
    assert not actions.event_open(first, UUID, "compute_attach_volume")
    attach = _action("req-1")
    (event,) = attach["events"]
    assert (event["host"], event["result"]) == ("host1", "Success")
    assert event["start_time"] <= event["finish_time"] == attach["finish_time"]
    assert (attach["message"], _action("req-2")["events"]) == (None, [])
    assert actions.event_finish_times(first, UUID, "compute_attach_volume") == [
        event["finish_time"]]


def test_an_error_marks_the_action_and_an_unstarted_event_is_recorded(backend_db):
    ctx = _ctx("req-3")
    actions.action_start(ctx, UUID, "reboot")
    actions.action_event_finish(ctx, UUID, "compute_reboot_instance", "Error",
                                "Traceback ...", "the guest did not stop")
    action = _action("req-3")
    (event,) = action["events"]
    assert (event["result"], event["traceback"], event["details"]) == (
        "Error", "Traceback ...", "the guest did not stop")
    assert event["start_time"] == event["finish_time"] == action["finish_time"]
    assert action["message"] == "Error"


def test_an_event_of_an_action_started_in_the_same_transaction(backend_db):
    ctx = _ctx("req-4")
    with session.writer() as s:
        actions.add_action(s, ctx, UUID, "create")
        actions.add_event(s, ctx, UUID, "conductor_schedule_and_build_instances")
    (event,) = _action("req-4")["events"]
    assert (event["event"], event["finish_time"]) == (
        "conductor_schedule_and_build_instances", None)


def test_events_outside_any_action_are_ignored(backend_db):
    ctx = _ctx("req-5")
    actions.action_event_start(ctx, UUID, "compute_stop_instance")
    actions.action_event_finish(ctx, UUID, "compute_stop_instance")
    assert actions.actions_get(UUID) == []
    assert not actions.event_open(ctx, UUID, "compute_stop_instance")
    assert actions.event_finish_times(ctx, UUID, "compute_stop_instance") == []


def test_the_latest_open_event_of_the_latest_action_ends_first(backend_db):
    """A request's second action takes its events; an event started twice ends its
    later start first, whatever order the database returns open and ended ones in."""
    ctx = _ctx("req-6")
    actions.action_start(ctx, UUID, "resize")
    actions.action_start(ctx, UUID, "confirmResize")
    for _ in range(2):
        actions.action_event_start(ctx, UUID, "compute_resize_instance", "host1")
    actions.action_event_finish(ctx, UUID, "compute_resize_instance")
    assert actions.event_open(ctx, UUID, "compute_resize_instance")
    first, second = sorted(
        (a for a in actions.actions_get(UUID) if a["request_id"] == "req-6"),
        key=lambda a: a["action"] != "resize")
    assert first["events"] == []
    started = sorted(second["events"], key=lambda e: e["start_time"])
    assert [e["finish_time"] is None for e in started] == [True, False]
    actions.action_event_finish(ctx, UUID, "compute_resize_instance")
    assert not actions.event_open(ctx, UUID, "compute_resize_instance")
