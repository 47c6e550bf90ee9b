"""Remote consoles through real HTTP on the all-in-one (fake driver): the URL that
POST /servers/{id}/remote-consoles (2.6) and the older os-get*Console actions answer
opens, through the API server's console proxy, the simulated host's VNC server (an RFB
handshake) or serial console (the console log, then an echo); tempest's schemas; the
token's own API; and the refusals: Nova's 400/404/409/410, and a proxy that relays
nothing for a bad or stale token or a foreign Origin."""

from __future__ import annotations

import urllib.parse

import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from tests.console_urls import websocket_url
from tests.functional.tempest_schemas import check

MV = "X-OpenStack-Nova-API-Version"


def _console(cloud, server_id, protocol="vnc", type_="novnc", version="2.6", **headers):
    return cloud.api.post(f"/servers/{server_id}/remote-consoles",
                          headers={MV: version, **headers},
                          json={"remote_console": {"protocol": protocol, "type": type_}})


def _fault(response, status, name="badRequest"):
    assert response.status_code == status, response.text
    return response.json()[name]["message"]


def _rfb_handshake(url: str) -> bytes:
    """As a VNC client: the server's version, ours back, security None, ClientInit; the
    ServerInit's width and height."""
    with connect(websocket_url(url), subprotocols=["binary"]) as ws:
        assert ws.recv(timeout=10) == b"RFB 003.008\n"
        ws.send(b"RFB 003.008\n")
        types = ws.recv(timeout=10)
        assert 1 in types[1:1 + types[0]]
        ws.send(bytes([1]))
        assert ws.recv(timeout=10) == b"\x00\x00\x00\x00"
        ws.send(bytes([1]))
        return ws.recv(timeout=10)[:4]


@pytest.fixture
def server_id(cloud):
    found = cloud.boot()
    cloud.wait_status(found, "ACTIVE")
    return found


def test_a_novnc_url_opens_the_guests_vnc_console(cloud, server_id):
    answered = check(_console(cloud, server_id), "v2_6", "servers", "get_remote_consoles")
    url = answered["remote_console"]["url"]
    assert answered["remote_console"]["type"] == "novnc"
    assert url.startswith(f"{cloud.base_url}/novnc/vnc_lite.html?path=")
    assert _rfb_handshake(url) == b"\x02\x80\x01\xe0"  # 640x480
    assert _rfb_handshake(url) == b"\x02\x80\x01\xe0"  # good until it expires


def test_before_2_6_the_action_answers_and_after_it_is_gone(cloud, server_id):
    action = {"os-getVNCConsole": {"type": "novnc"}}
    answered = check(cloud.api.post(f"/servers/{server_id}/action", json=action),
                     "v2_1", "servers", "get_vnc_console")
    assert _rfb_handshake(answered["console"]["url"]) == b"\x02\x80\x01\xe0"
    gone = cloud.api.post(f"/servers/{server_id}/action", json=action,
                          headers={MV: "2.6"})
    assert _fault(gone, 404, "itemNotFound") == "The resource could not be found."
    rdp = cloud.api.post(f"/servers/{server_id}/action",
                         json={"os-getRDPConsole": {"type": "rdp-html5"}})
    assert rdp.status_code == 410
    assert _fault(_console(cloud, server_id, version="2.5"), 404, "itemNotFound")


def test_a_serial_console_shows_the_log_and_echoes(cloud, server_id, conf):
    refused = _console(cloud, server_id, "serial", "serial")
    assert _fault(refused, 400) == "Unavailable console type serial."
    conf.set_override("enabled", True, group="serial_console")
    answered = check(_console(cloud, server_id, "serial", "serial"), "v2_6", "servers",
                     "get_remote_consoles")
    url = answered["remote_console"]["url"]
    assert url.startswith(cloud.base_url.replace("http", "ws") + "/serial/?token=")
    log = cloud.api.post(f"/servers/{server_id}/action",
                         json={"os-getConsoleOutput": {}}).json()["output"]
    with connect(url) as ws:
        seen = b""
        while log.splitlines()[-1].encode() not in seen:
            seen += ws.recv(timeout=10)
        ws.send(b"hello\r")
        while b"hello" not in seen.split(log.splitlines()[-1].encode())[-1]:
            seen += ws.recv(timeout=10)


def test_a_token_shows_where_its_console_is_for_admins(cloud, server_id):
    url = _console(cloud, server_id).json()["remote_console"]["url"]
    token = urllib.parse.parse_qs(urllib.parse.urlparse(websocket_url(url)).query)[
        "token"][0]
    found = cloud.api.get(f"/os-console-auth-tokens/{token}", headers={MV: "2.31"})
    assert found.status_code == 200, found.text
    console = found.json()["console"]
    assert (console["instance_uuid"], console["host"]) == (server_id, "127.0.0.1")
    assert console["internal_access_path"] == f"vnc/{server_id}"
    assert isinstance(console["port"], int)
    assert _fault(cloud.api.get(f"/os-console-auth-tokens/{token}",
                                headers={MV: "2.30"}), 400)
    unknown = cloud.api.get("/os-console-auth-tokens/nope", headers={MV: "2.31"})
    assert _fault(unknown, 404, "itemNotFound") == "Token not found"
    member = cloud.api.get(f"/os-console-auth-tokens/{token}",
                           headers={MV: "2.31", "X-Auth-Token": "alice:p1"})
    assert _fault(member, 403, "forbidden") == (
        "Policy doesn't allow os_compute_api:os-console-auth-tokens to be performed.")


@pytest.mark.parametrize(("protocol", "type_", "message"), [
    ("spice", "spice-html5", "Unavailable console type spice-html5."),
    ("rdp", "rdp-html5", "Unavailable console type rdp."),
    ("vnc", "xvpvnc", "Invalid console type xvpvnc"),
    ("vnc", "serial", "Invalid console type serial"),
])
def test_console_types_no_driver_offers_are_nova_400s(cloud, server_id, protocol, type_,
                                                      message):
    assert _fault(_console(cloud, server_id, protocol, type_), 400) == message


def test_bad_bodies_unknown_servers_and_other_projects(cloud, server_id):
    assert _fault(_console(cloud, server_id, "mks", "webmks", version="2.7"), 400)
    assert _fault(_console(cloud, server_id, "mks", "webmks", version="2.8"), 400) == (
        "Unavailable console type webmks.")
    bad = cloud.api.post(f"/servers/{server_id}/remote-consoles", headers={MV: "2.6"},
                         json={"remote_console": {"protocol": "vnc"}})
    assert _fault(bad, 400)
    missing = _console(cloud, "7f3c9d4e-0000-4000-8000-000000000000")
    assert missing.status_code == 404
    foreign = _console(cloud, server_id, **{"X-Auth-Token": "alice:p1"})
    assert foreign.status_code == 404


def test_the_proxy_relays_nothing_for_a_bad_stale_or_foreign_token(cloud, server_id):
    url = websocket_url(_console(cloud, server_id).json()["remote_console"]["url"])
    for refused in (url.replace("token=", "token=bad"),
                    url.replace("/novnc/websockify", "/serial/")):
        with pytest.raises(InvalidStatus) as caught:
            connect(refused)
        assert caught.value.response.status_code == 403
    with pytest.raises(InvalidStatus):
        connect(url, origin="http://elsewhere.example")
    with connect(url, origin=cloud.base_url) as ws:
        assert ws.recv(timeout=10) == b"RFB 003.008\n"
    cloud.api.delete(f"/servers/{server_id}")
    cloud.wait_gone(server_id)
    with pytest.raises(InvalidStatus):
        connect(url)


def test_a_token_for_a_console_that_moved_opens_nothing_and_a_new_one_does(cloud,
                                                                           server_id):
    url = _console(cloud, server_id).json()["remote_console"]["url"]
    host = cloud.server(server_id)["OS-EXT-SRV-ATTR:host"]
    driver = cloud.compute(host).driver
    driver.cleanup_host(host)  # its console listener gone: the next is on another port
    driver.init_host(host)
    with pytest.raises(InvalidStatus) as caught:
        connect(websocket_url(url))
    assert caught.value.response.status_code == 403
    fresh = _console(cloud, server_id).json()["remote_console"]["url"]
    assert _rfb_handshake(fresh) == b"\x02\x80\x01\xe0"


def test_a_stopped_servers_console_is_unavailable(cloud, server_id):
    cloud.api.post(f"/servers/{server_id}/action", json={"os-stop": None})
    cloud.wait_status(server_id, "SHUTOFF")
    assert _fault(_console(cloud, server_id), 400) == "Unavailable console type vnc."
