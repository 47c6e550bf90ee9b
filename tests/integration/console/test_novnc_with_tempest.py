"""The noVNC console as tempest's NoVNCConsoleTestJSON judges it, with tempest's own
checks (tempest.common.compute): Debian's noVNC pages served by the API server's console
proxy ([DEFAULT] web), the websocket upgrade, the RFB negotiation with a simulated
host's VNC server through the proxy, and a bad token closing the connection unanswered.
noVNC is taken from Debian's package without installing it (`apt-get download`), as the
guest's kernel is."""

from __future__ import annotations

import subprocess
import urllib.parse
from pathlib import Path

import pytest
from tempest.common import compute

MV = {"X-OpenStack-Nova-API-Version": "2.6"}


class _Tempest(compute.NoVNCValidateMixin):
    def runTest(self) -> None:  # noqa: N802 (unittest's name)
        """Only its validate_* methods are used."""


@pytest.fixture(scope="module")
def novnc_pages(tmp_path_factory) -> Path:
    where = tmp_path_factory.mktemp("novnc")
    subprocess.run(["apt-get", "download", "novnc"], cwd=where, check=True,
                   capture_output=True)
    package = next(where.glob("novnc_*.deb"))
    subprocess.run(["dpkg-deb", "-x", str(package), str(where / "root")], check=True)
    return where / "root" / "usr" / "share" / "novnc"


@pytest.fixture
def console_url(cloud_factory, conf, novnc_pages):
    conf.set_override("web", str(novnc_pages))
    cloud = cloud_factory(hosts=1)
    server_id = cloud.boot()
    cloud.wait_status(server_id, "ACTIVE")
    answered = cloud.api.post(f"/servers/{server_id}/remote-consoles", headers=MV, json={
        "remote_console": {"protocol": "vnc", "type": "novnc"}})
    assert answered.status_code == 200, answered.text
    return answered.json()["remote_console"]["url"]


def test_novnc(console_url):
    tempest = _Tempest()
    tempest.validate_novnc_html(console_url)
    tempest.websocket = compute.create_websocket(console_url)
    try:
        tempest.validate_websocket_upgrade()
        tempest.validate_rfb_negotiation()
    finally:
        tempest.websocket.close()


def test_novnc_bad_token(console_url):
    parts = urllib.parse.urlparse(console_url)
    params = urllib.parse.parse_qs(parts.query)
    params["path"] = [params["path"][0].replace("token=", "token=bad")]
    websocket = compute.create_websocket(
        parts._replace(query=urllib.parse.urlencode(params, doseq=True)).geturl())
    try:
        data = websocket.receive_frame()
        assert data is None or not data
    finally:
        websocket.close()
