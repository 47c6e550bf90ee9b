"""A boot's records commit together, and a state change with the action event it ends:
all of it or none."""

import functools

import pytest
from sqlalchemy.exc import IntegrityError

from novalite import context, exception
from novalite.db.api import actions, boots, instances, request_specs
from tests import builders


def _record(uuid, name="vm"):
    return {"uuid": uuid, "display_name": name, "project_id": "p1", "user_id": "u1",
            "flavor": builders.flavor(), "vm_state": "building", "task_state": "scheduling"}


def test_a_boot_writes_instances_actions_and_specs_together(db):
    ctx = context.RequestContext(user_id="u1", project_id="p1")
    spec = builders.request_spec()
    uuids = [spec.instance_uuid, builders.instance().uuid]
    boots.boot_records_create(ctx, [_record(u, f"vm-{i}") for i, u in enumerate(uuids)],
                              {"role": "web"}, ["blue"], spec, "api1")
    for uuid in uuids:
        assert instances.instance_get(uuid).metadata == {"role": "web"}
        assert instances.instance_get_view(uuid)["tags"] == ["blue"]
        assert [a["action"] for a in actions.actions_get(uuid)] == ["create"]
        assert request_specs.request_spec_get(uuid).instance_uuid == uuid


def test_a_boot_that_fails_part_way_leaves_nothing(db):
    ctx = context.RequestContext(user_id="u1", project_id="p1")
    spec = builders.request_spec()
    twice = [_record(spec.instance_uuid), _record(spec.instance_uuid)]  # unique per uuid
    with pytest.raises(IntegrityError):
        boots.boot_records_create(ctx, twice, None, None, spec, "api1")
    with pytest.raises(exception.InstanceNotFound):
        instances.instance_get(spec.instance_uuid)
    assert actions.actions_get(spec.instance_uuid) == []
    with pytest.raises(exception.NotFound):
        request_specs.request_spec_get(spec.instance_uuid)


def test_an_update_and_its_event_commit_together(db):
    ctx = context.RequestContext(user_id="u1", project_id="p1")
    spec = builders.request_spec()
    uuid = spec.instance_uuid
    boots.boot_records_create(ctx, [_record(uuid)], None, None, spec, "api1")
    instances.instance_update(
        uuid, {"host": "h1"}, expected_task_state=["scheduling"],
        along=functools.partial(actions.finish_event, ctx=ctx, instance_uuid=uuid,
                                event="conductor_schedule_and_build_instances"))
    [event] = actions.actions_get(uuid)[0]["events"]
    assert event["result"] == "Success"
    assert instances.instance_get(uuid).host == "h1"


def test_a_lost_race_writes_no_event_and_a_failed_event_undoes_the_update(db):
    ctx = context.RequestContext(user_id="u1", project_id="p1")
    spec = builders.request_spec()
    uuid = spec.instance_uuid
    boots.boot_records_create(ctx, [_record(uuid)], None, None, spec, "api1")
    with pytest.raises(exception.UnexpectedTaskStateError):
        instances.instance_update(
            uuid, {"task_state": None}, expected_task_state=["spawning"],
            along=functools.partial(actions.finish_event, ctx=ctx, instance_uuid=uuid,
                                    event="conductor_schedule_and_build_instances"))
    assert actions.actions_get(uuid)[0]["events"] == []

    def broken(_session):
        raise RuntimeError("the event could not be written")

    with pytest.raises(RuntimeError):
        instances.instance_update(uuid, {"task_state": None},
                                  expected_task_state=["scheduling"], along=broken)
    assert instances.instance_get(uuid).task_state == "scheduling"

