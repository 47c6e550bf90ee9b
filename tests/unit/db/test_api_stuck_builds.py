"""The build watchdog's query on each backend: every stuck build is ended exactly once,
with its fault, however many conductors run it at once; live builds are left alone."""

import datetime
import threading
from concurrent.futures import ThreadPoolExecutor

from novalite.db import session
from novalite.db.api import actions, build_outbox, instances, stuck_builds
from novalite.timeutils import utcnow
from tests import builders


def _create(**values):
    inst = builders.instance()
    instances.instance_create({
        "uuid": inst.uuid, "display_name": "vm", "project_id": "p1", "user_id": "u1",
        "flavor": builders.flavor(), "vm_state": "building", "task_state": "scheduling",
        "host": "compute1", "node": "compute1", **values})
    return inst.uuid


def test_each_stuck_build_is_ended_once_by_concurrent_conductors(backend_db):
    stuck = {_create() for _ in range(30)}
    deleting = _create(task_state="deleting")
    active = _create(vm_state="active", task_state=None)
    later = utcnow() + datetime.timedelta(seconds=60)  # all of these are "old"
    start = threading.Barrier(4)

    def conductor(_):
        start.wait(timeout=10)
        ended = []
        while batch := stuck_builds.bury_stuck_builds(later, "stuck", limit=7):
            ended.extend(batch)
        return ended

    with ThreadPoolExecutor(4) as pool:
        runs = list(pool.map(conductor, range(4)))
    ended = [uuid for run in runs for uuid in run]
    assert sorted(ended) == sorted(stuck)  # each once, none of the others
    faults = actions.fault_get_latest(sorted(stuck))
    assert {f["message"] for f in faults.values()} == {"stuck"} and len(faults) == 30
    assert all(instances.instance_get(uuid).vm_state == "error" for uuid in stuck)
    # ERROR on no host: its claim is freed, so it holds none (the placement audit's rule)
    assert {(instances.instance_get(uuid).host, instances.instance_get(uuid).node)
            for uuid in stuck} == {(None, None)}
    assert instances.instance_get(deleting).vm_state == "building"
    assert instances.instance_get(active).vm_state == "active"


def test_a_build_that_moved_recently_is_not_stuck(backend_db):
    _create()
    assert stuck_builds.bury_stuck_builds(utcnow() - datetime.timedelta(seconds=60),
                                          "stuck") == []


def test_a_build_no_conductor_took_is_stuck_only_past_the_queue_wait(backend_db):
    queued, taken = _create(), _create()
    with session.writer() as s:
        build_outbox.add(s, [queued, taken], "api1")
    build_outbox.taken([taken])
    later = utcnow() + datetime.timedelta(seconds=60)
    assert stuck_builds.bury_stuck_builds(later, "stuck", queued_before=utcnow() -
                                          datetime.timedelta(seconds=600)) == [taken]
    assert stuck_builds.bury_stuck_builds(later, "stuck", queued_before=later) == [queued]
