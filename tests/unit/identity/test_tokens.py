"""Token issue, validation, expiry and revocation against a bootstrapped database."""

import datetime
import time

import pytest

from novalite.identity import (
    bootstrap,
    exception,
    fernet_keys,
    resource,
    token_cache,
    token_formatter,
    tokens,
    users,
)
from novalite.timeutils import utcnow


@pytest.fixture
def cloud(db):
    return bootstrap.bootstrap("http://cloud.test")


def _ids(name: str) -> tuple[str, str]:
    user = users.get_user_by_name(name, "default")
    return user["id"], resource.get_project_by_name(name, "default")["id"]


def test_payload_round_trip(conf):
    fernet_keys.setup()
    now = utcnow()
    payload = token_formatter.TokenPayload("u", "p", ["password"], ["a" * 22], now,
                                           now + datetime.timedelta(hours=1))
    assert token_formatter.unpack(token_formatter.pack(payload)) == payload
    assert token_formatter.unpack("garbage") is None


def test_issue_and_validate(cloud):
    user_id, project_id = _ids("demo")
    token_id, issued = tokens.issue(user_id, project_id, ["password"])
    token = tokens.validate(token_id)
    assert token.user["name"] == "demo" and token.project["id"] == project_id
    assert token.role_names == ["member", "reader"]
    assert token.payload == issued.payload


def test_expired_token_is_refused(cloud, conf):
    conf.set_override("expiration", 60, group="token")
    user_id, project_id = _ids("demo")
    token_id, token = tokens.issue(user_id, project_id, ["password"])
    expired = token_formatter.pack(token.payload.__class__(
        **{**token.payload.__dict__, "expires_at": utcnow() - datetime.timedelta(seconds=1)}))
    with pytest.raises(exception.Unauthorized):
        tokens.validate(expired)
    assert tokens.validate(token_id)


def test_revoked_token_is_refused_but_others_are_not(cloud):
    user_id, project_id = _ids("demo")
    first, _ = tokens.issue(user_id, project_id, ["password"])
    second, _ = tokens.issue(user_id, project_id, ["password"])
    tokens.revoke(first)
    with pytest.raises(exception.Unauthorized):
        tokens.validate(first)
    assert tokens.validate(second)


def test_tokens_signed_by_rotated_out_keys_are_refused(cloud):
    user_id, project_id = _ids("demo")
    token_id, _ = tokens.issue(user_id, project_id, ["password"])
    fernet_keys.rotate()
    token_cache.clear()
    assert tokens.validate(token_id)
    fernet_keys.rotate()
    token_cache.clear()
    with pytest.raises(exception.Unauthorized):
        tokens.validate(token_id)


def test_password_change_revokes_earlier_tokens_only(cloud):
    user_id, project_id = _ids("demo")
    old, _ = tokens.issue(user_id, project_id, ["password"])
    users.update_user(user_id, {"password": "changed"})
    time.sleep(0.001)
    new, _ = tokens.issue(user_id, project_id, ["password"])
    with pytest.raises(exception.Unauthorized):
        tokens.validate(old)
    assert tokens.validate(new)


def test_no_role_on_the_project_means_no_token(cloud):
    user_id, _ = _ids("demo")
    _, admin_project = _ids("admin")
    with pytest.raises(exception.Unauthorized):
        tokens.issue(user_id, admin_project, ["password"])
