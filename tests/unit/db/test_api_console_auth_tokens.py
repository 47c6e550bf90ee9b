import time

from novalite.db import models, session
from novalite.db.api import console_auth_tokens, instances
from tests import builders


def _instance() -> str:
    uuid = builders.instance().uuid
    instances.instance_create({"uuid": uuid, "project_id": "p1", "user_id": "u1",
                               "flavor": builders.flavor(), "vm_state": "active"})
    return uuid


def test_a_token_opens_its_console_until_it_expires_and_only_its_hash_is_kept(db):
    uuid = _instance()
    token = console_auth_tokens.authorize("novnc", "127.0.0.1", 5900, None, uuid, 600)
    auth = console_auth_tokens.validate(token)
    assert (auth.console_type, auth.host, auth.port, auth.instance_uuid) == (
        "novnc", "127.0.0.1", 5900, uuid)
    assert auth.expires - time.time() > 590
    with session.reader() as s:
        assert token not in {t.token_hash for t in s.query(models.ConsoleAuthToken)}
    assert console_auth_tokens.validate("x" + token) is None
    expired = console_auth_tokens.authorize("serial", "127.0.0.1", 10000, "p", uuid, 600)
    with session.writer() as s:
        s.query(models.ConsoleAuthToken).update({"expires": int(time.time()) - 1})
    assert console_auth_tokens.validate(expired) is None
    console_auth_tokens.authorize("novnc", "127.0.0.1", 5901, None, uuid, 600)
    with session.reader() as s:  # a new token swept the expired ones
        assert s.query(models.ConsoleAuthToken).count() == 1


def test_a_deleted_servers_tokens_open_nothing(db):
    uuid = _instance()
    token = console_auth_tokens.authorize("novnc", "127.0.0.1", 5900, None, uuid, 600)
    instances.instance_destroy(uuid)
    assert console_auth_tokens.validate(token) is None
