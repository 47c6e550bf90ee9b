"""The placement client's calls to the all-in-one's own server skip keystoneauth and
requests, and still send what they would have sent: the microversion, the global request
id, the service's User-Agent, the token (a new one after a 401), with the group's
retries, over one kept-alive connection. Neutron's and Cinder's clients use it with the
user's token instead."""

from __future__ import annotations

import http.server
import json
import socket
import threading

import pytest
from keystoneauth1 import exceptions as ks_exc

from novalite.clients import adapters
from novalite.clients.local_http import LocalClient
from novalite.clients.placement import GROUP, PlacementUnavailable, SchedulerReportClient
from novalite.conf import CONF
from novalite.context import RequestContext
from tests.unit.clients import fake_placement

CTX = RequestContext(request_id="req-local", user_id="u1", project_id="p1")


class Placement(fake_placement.Handler):
    protocol_version = "HTTP/1.1"  # keep-alive, as placement's server
    seen: list[dict] = []
    answers: list[int] = []  # statuses to answer first, then 200
    connections = 0

    def setup(self):
        type(self).connections += 1
        super().setup()

    def do_GET(self):  # noqa: N802 (http.server's name)
        type(self).seen.append({"path": self.path, **{k.lower(): v for k, v in
                                                      self.headers.items()}})
        status = type(self).answers.pop(0) if type(self).answers else 200
        self.answer(status, {"allocations": {}} if status == 200 else {"errors": []})

    def do_PUT(self):  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).seen.append({"path": self.path, "body": body, **{
            k.lower(): v for k, v in self.headers.items()}})
        self.answer(200, {"resource_provider_generation":
                          body["resource_provider_generation"] + 1})


@pytest.fixture
def placement(conf):
    Placement.seen, Placement.answers, Placement.connections = [], [], 0
    conf.set_override("status_code_retry_delay", 0.01, group="placement")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Placement)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/placement"
    server.shutdown()
    adapters.forget_local(GROUP)


class Token:
    """A keystoneauth plugin's part the client uses: its headers, and invalidate."""

    def __init__(self):
        self.issued = 1

    def get_headers(self, session):
        return {"X-Auth-Token": f"token-{self.issued}"}

    def invalidate(self):
        self.issued += 1
        return True


def test_calls_carry_what_keystoneauth_would_have_sent_on_one_connection(placement):
    adapters.use_local(GROUP, placement, None)
    client = SchedulerReportClient()
    assert isinstance(client.client, LocalClient)
    assert client.get_allocations_for_consumer(CTX, "c1") == {"allocations": {}}
    client._put_with_generation(CTX, "rp1", "traits", {"traits": ["CUSTOM_A"]}, 4)
    get, put = Placement.seen
    assert get["path"] == "/placement/allocations/c1"
    assert get["openstack-api-version"].startswith("placement 1.")
    assert get["x-openstack-request-id"] == "req-local"
    assert get["user-agent"].startswith(adapters.CLIENT_NAME + "/")
    assert "x-auth-token" not in get  # no credentials: noauth2's admin
    assert put["body"] == {"traits": ["CUSTOM_A"], "resource_provider_generation": 4}
    assert put["content-type"] == "application/json"
    assert Placement.connections == 1


def test_an_expired_token_is_replaced_once(placement):
    token = Token()
    adapters.use_local(GROUP, placement, token)
    Placement.answers = [401]
    assert SchedulerReportClient().get_allocations_for_consumer(CTX, "c1") == {
        "allocations": {}}
    assert [s["x-auth-token"] for s in Placement.seen] == ["token-1", "token-2"]


def test_a_503_is_retried_as_the_group_says(placement, conf):
    adapters.use_local(GROUP, placement, None)
    Placement.answers = [503, 503]
    assert SchedulerReportClient().get_allocations_for_consumer(CTX, "c1") == {
        "allocations": {}}
    assert len(Placement.seen) == 3
    conf.set_override("status_code_retries", 1, group="placement")
    Placement.answers = [503, 503]
    with pytest.raises(PlacementUnavailable, match="503"):
        SchedulerReportClient().get_allocations_for_consumer(CTX, "c2")


@pytest.fixture
def refused(conf):
    """The URL of a port nobody listens on; the group retries connecting twice."""
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    conf.set_override("connect_retries", 2, group="placement")
    conf.set_override("connect_retry_delay", 0.01, group="placement")
    return f"http://127.0.0.1:{port}"


def test_a_refused_connection_is_retried_then_reported(refused):
    adapters.use_local(GROUP, f"{refused}/placement", None)
    try:
        with pytest.raises(PlacementUnavailable, match="Unable to establish connection"):
            SchedulerReportClient().get_allocations_for_consumer(CTX, "c1")
    finally:
        adapters.forget_local(GROUP)


def test_a_configured_endpoint_goes_through_keystoneauth(placement, conf):
    adapters.use_local(GROUP, placement, None)
    conf.set_override("endpoint_override", placement, group="placement")
    assert adapters.local_client(GROUP) is None
    assert SchedulerReportClient().get_allocations_for_consumer(CTX, "c1") == {
        "allocations": {}}
    assert "keystoneauth1" in Placement.seen[0]["user-agent"]


def test_raising_on_errors_is_refused_not_ignored(placement):
    client = LocalClient(placement, None, adapters.CLIENT_NAME, CONF.placement)
    with pytest.raises(ValueError, match="raise_exc"):
        client.request("/allocations/c1", "GET", raise_exc=True)


def test_a_users_call_carries_the_users_token_not_the_services(placement):
    """Nova calls Neutron and Cinder with the user's token: the shared client of such a
    group is the local one, and a call it is told is not its own to authenticate keeps
    the caller's headers, and is not retried with the service's token on a 401."""
    adapters.use_local("neutron", placement, Token())
    try:
        client = adapters.shared("neutron")
        assert isinstance(client, LocalClient)
        client.request("/v2.0/networks", "GET", headers={"X-Auth-Token": "user-token"},
                       authenticated=False)
        Placement.answers = [401]
        assert client.request("/v2.0/networks", "GET", headers={
            "X-Auth-Token": "user-token"}, authenticated=False).status_code == 401
        client.request("/v2.0/networks", "GET")
        assert [s["x-auth-token"] for s in Placement.seen] == [
            "user-token", "user-token", "token-1"]
        assert Placement.seen[0]["path"] == "/placement/v2.0/networks"
    finally:
        adapters.forget_local("neutron")


def test_a_calls_own_connect_retries_override_the_groups(refused):
    client = LocalClient(refused, None, "test", CONF.placement)
    sent = []
    request = client._pool.request
    client._pool.request = lambda *args: sent.append(args) or request(*args)
    for retries, attempts in ((0, 1), (None, 3)):
        sent.clear()
        with pytest.raises(ks_exc.ConnectFailure):
            client.request("/", "GET", connect_retries=retries)
        assert len(sent) == attempts
