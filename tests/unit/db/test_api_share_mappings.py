import uuid

import pytest
import sqlalchemy.exc

from novalite.db import models, session
from novalite.db.api import instances, share_mappings
from tests import builders


def _instance() -> str:
    uuid_ = builders.instance().uuid
    instances.instance_create({"uuid": uuid_, "project_id": "p1", "user_id": "u1",
                               "flavor": builders.flavor(), "vm_state": "stopped"})
    return uuid_


def _attach(instance_uuid: str, share_id: str, tag: str) -> None:
    """As Nova records an attached share: nothing in novalite writes one."""
    with session.writer() as s:
        s.add(models.ShareMapping(
            uuid=str(uuid.uuid4()), instance_uuid=instance_uuid, share_id=share_id,
            status="inactive", tag=tag, export_location="10.0.0.50:/mnt/foo",
            share_proto="NFS"))


def test_a_servers_shares_are_read_in_attach_order_and_only_its_own(db):
    server, other = _instance(), _instance()
    first, second = str(uuid.uuid4()), str(uuid.uuid4())
    _attach(server, first, "data")
    _attach(server, second, second)
    _attach(other, first, "data")
    listed = share_mappings.share_mappings_get(server)
    assert [(m.share_id, m.tag, m.status) for m in listed] == [
        (first, "data", "inactive"), (second, second, "inactive")]
    shown = share_mappings.share_mapping_get(server, first)
    assert (shown.instance_uuid, shown.export_location, shown.share_proto) == (
        server, "10.0.0.50:/mnt/foo", "NFS")
    assert share_mappings.share_mapping_get(server, str(uuid.uuid4())) is None
    assert share_mappings.share_mappings_get(str(uuid.uuid4())) == []


def test_a_share_or_a_tag_is_attached_once_per_server(db):
    server, share_id = _instance(), str(uuid.uuid4())
    _attach(server, share_id, "data")
    for again in ((share_id, "other"), (str(uuid.uuid4()), "data")):
        with pytest.raises(sqlalchemy.exc.IntegrityError):
            _attach(server, *again)


def test_a_detach_removes_one_mapping_once(db):
    server, share_id = _instance(), str(uuid.uuid4())
    _attach(server, share_id, "data")
    assert share_mappings.share_mapping_destroy(server, share_id) is True
    assert share_mappings.share_mapping_destroy(server, share_id) is False
    assert share_mappings.share_mappings_get(server) == []


def test_a_servers_mappings_go_with_it(db):
    server, other = _instance(), _instance()
    _attach(server, str(uuid.uuid4()), "data")
    _attach(other, str(uuid.uuid4()), "data")
    instances.instance_destroy(server)
    assert share_mappings.share_mappings_get(server) == []
    assert len(share_mappings.share_mappings_get(other)) == 1
