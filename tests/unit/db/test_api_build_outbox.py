import datetime

from novalite import context
from novalite.db.api import boots, build_outbox, instances
from novalite.timeutils import utcnow
from tests import builders


def _saved(host: str, *names: str) -> list[str]:
    spec = builders.request_spec()
    uuids = [spec.instance_uuid] + [builders.instance().uuid for _ in names[1:]]
    records = [{"uuid": uuid, "display_name": name, "project_id": "p1", "user_id": "u1",
                "flavor": builders.flavor(), "vm_state": "building",
                "task_state": "scheduling", "reservation_id": f"r-{names[0]}"}
               for uuid, name in zip(uuids, names, strict=True)]
    boots.boot_records_create(context.RequestContext(user_id="u1", project_id="p1"),
                              records, None, None, spec, host)
    return uuids


def test_unsent_builds_are_this_hosts_saved_before_its_start_one_list_per_request(db):
    pair = _saved("api1", "a", "b")
    alone = _saved("api1", "c")
    _saved("api2", "d")
    assert build_outbox.unsent("api1", utcnow()) == [pair, alone]
    assert build_outbox.unsent("api1", utcnow() - datetime.timedelta(hours=1)) == []


def test_taken_builds_and_gone_servers_leave_the_outbox(db):
    taken, gone, kept = _saved("api1", "a"), _saved("api1", "b"), _saved("api1", "c")
    build_outbox.taken(taken)
    instances.instance_destroy(gone[0])
    assert build_outbox.unsent("api1", utcnow()) == [kept]
    build_outbox.taken(kept)
    assert build_outbox.unsent("api1", utcnow()) == []
