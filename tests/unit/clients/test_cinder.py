"""The compute's volume service client: Nova's form of a connection from Cinder's
flattened one, the user's token or the service's credentials, the microversion, and
Cinder's fault bodies as errors."""

import json

import pytest

from novalite.clients import cinder
from novalite.context import RequestContext

USER = RequestContext(user_id="u", project_id="p", auth_token="tok", request_id="req-1")


class Response:
    def __init__(self, status: int, body: object = None) -> None:
        self.status_code = status
        self.content = json.dumps(body).encode() if body is not None else b""
        self.text = self.content.decode()

    def json(self):
        return json.loads(self.content)


@pytest.fixture
def service(monkeypatch):
    asked, answers = [], []

    class Adapter:
        def request(self, path, method, **kwargs):
            asked.append((method, path, kwargs))
            return answers.pop(0)

    monkeypatch.setattr(cinder.adapters, "shared", lambda group: Adapter())
    return asked, answers


def test_a_connection_comes_back_in_novas_form(service, conf):
    asked, answers = service
    answers.append(Response(200, {"attachment": {"id": "a1", "connection_info": {
        "driver_volume_type": "nbd", "host": "h", "port": 1, "export": "v",
        "attachment_id": "a1"}}}))
    found = cinder.Client(USER, admin=True).attachment_update("a1", {"host": "c1"})
    assert found == {"driver_volume_type": "nbd", "data": {"host": "h", "port": 1,
                                                           "export": "v"}}
    method, path, kwargs = asked[0]
    assert (method, path, kwargs["json"]) == ("PUT", "/attachments/a1", {
        "attachment": {"connector": {"host": "c1"}}})
    assert kwargs["headers"] == {"OpenStack-API-Version": "volume 3.44"}  # the service's
    assert cinder.connection_info({"connection_info": {}}) == {}


def test_a_user_call_carries_the_users_token_and_faults_are_errors(service, conf):
    asked, answers = service
    answers.append(Response(400, {"badRequest": {"code": 400, "message": "Invalid volume"}}))
    with pytest.raises(cinder.CinderError) as refused:
        cinder.Client(USER).attachment_create("v1", "s1")
    assert (refused.value.status, refused.value.format_message()) == (400, "Invalid volume")
    kwargs = asked[0][2]
    assert kwargs["headers"]["X-Auth-Token"] == "tok" and kwargs["authenticated"] is False
    assert kwargs["global_request_id"] == "req-1"


def test_deleting_an_attachment_already_gone_is_done(service, conf):
    _, answers = service
    answers.append(Response(404, {"itemNotFound": {"code": 404, "message": "gone"}}))
    cinder.Client(USER, admin=True).attachment_delete("a1")
    answers.append(Response(500, {"computeFault": {"code": 500, "message": "boom"}}))
    with pytest.raises(cinder.CinderError):
        cinder.Client(USER, admin=True).attachment_delete("a1")
