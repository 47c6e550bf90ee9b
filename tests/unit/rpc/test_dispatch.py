"""Versioned dispatch: caps on the caller's side, compatibility checks on the server's."""

import pytest

from novalite import context
from novalite.rpc import (
    NoSuchMethod,
    RPCClient,
    RPCServer,
    RPCVersionCapError,
    Target,
    UnsupportedVersion,
    get_transport,
)


class Compute:
    target = Target(version="1.2")

    def ping(self, ctx, value):
        return {"value": value, "request_id": context.current().request_id}

    def _secret(self, ctx):
        return "never over RPC"


class Tasks:
    target = Target(version="1.0", namespace="tasks")

    def ping(self, ctx, value):
        return f"tasks:{value}"


@pytest.fixture
def server(conf):
    transport = get_transport("inprocess://")
    srv = RPCServer(transport, Target("svc", "host1"), [Compute(), Tasks()])
    srv.start()
    yield transport
    srv.stop()
    srv.wait(5)


def _client(transport, version="1.0", cap=None, namespace=None):
    return RPCClient(transport, Target("svc", version=version, namespace=namespace),
                     version_cap=cap, timeout=5)


def test_older_minor_versions_are_served_and_the_context_travels(server):
    ctx = context.get_admin_context()
    for version in ("1.0", "1.2"):
        reply = _client(server, version).call(ctx, "ping", value=1)
        assert reply == {"value": 1, "request_id": ctx.request_id}


@pytest.mark.parametrize("version", ["1.3", "2.0"])
def test_newer_minor_or_other_major_is_refused(server, version):
    with pytest.raises(UnsupportedVersion, match=version):
        _client(server, version).call(context.get_admin_context(), "ping", value=1)


def test_the_version_cap_stops_messages_before_they_leave(server):
    client = _client(server, "1.0", cap="1.1")
    assert client.can_send_version("1.1") and not client.can_send_version("1.2")
    with pytest.raises(RPCVersionCapError):
        client.prepare(version="1.2").call(context.get_admin_context(), "ping", value=1)


def test_unknown_and_private_methods_are_not_callable(server):
    ctx = context.get_admin_context()
    with pytest.raises(NoSuchMethod):
        _client(server).call(ctx, "nope")
    with pytest.raises(NoSuchMethod):
        _client(server).call(ctx, "_secret")


def test_namespaces_select_the_endpoint(server):
    ctx = context.get_admin_context()
    assert _client(server, namespace="tasks").call(ctx, "ping", value=2) == "tasks:2"
    assert _client(server).call(ctx, "ping", value=2)["value"] == 2
