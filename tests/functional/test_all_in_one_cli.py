"""`novalite all-in-one` as a user starts it: a process, a port, a state directory."""

from __future__ import annotations

import signal
import subprocess
import sys

import httpx
import yaml

from novalite.image import db as images
from tests.ports import free_port
from tests.waiting import wait_for


def _start(state_dir, port: int, *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "novalite.cmd.novalite", "all-in-one", "--state-dir",
         str(state_dir), "--port", str(port), "--hosts", "2", "--listen", "127.0.0.1", *args],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def _noauth2(tmp_path) -> tuple[str, str]:
    config = tmp_path / "noauth2.conf"
    config.write_text("[api]\nauth_strategy = noauth2\n")
    return "--config-file", str(config)


def _wait_up(proc: subprocess.Popen, base: str) -> str:
    """Up once the banner says so (the computes have reported); returns its first two
    lines."""
    line = proc.stdout.readline()
    while line and not line.startswith("novalite all-in-one is running"):
        line = proc.stdout.readline()
    assert line, "the all-in-one exited before it was running"
    assert httpx.get(f"{base}/compute/", timeout=5).status_code == 200
    return line + proc.stdout.readline()


def _stop(proc: subprocess.Popen) -> str:
    proc.send_signal(signal.SIGTERM)
    # read through the file object: communicate(timeout=...) reads the pipe's descriptor
    # and loses the banner lines _wait_up's readline already buffered
    out = proc.stdout.read()
    proc.wait(timeout=60)
    assert proc.returncode == 0, out
    return out


def test_start_boot_stop_and_restart_keeps_state(tmp_path):
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    api = httpx.Client(base_url=f"{base}/compute/v2.1", timeout=30)
    proc = _start(tmp_path, port, *_noauth2(tmp_path))
    banner = _wait_up(proc, base)
    assert f"Compute API: http://127.0.0.1:{port}/compute/v2.1" in banner
    created = api.post("/servers", json={"server": {
        "name": "persist", "flavorRef": "1", "imageRef": images.DEFAULT_IMAGE_ID}})
    server_id = created.json()["server"]["id"]
    wait_for(lambda: api.get(f"/servers/{server_id}").json()["server"]["status"] == "ACTIVE",
             timeout=30, what="the server ACTIVE")
    _stop(proc)
    assert (tmp_path / "novalite.sqlite").exists()

    proc = _start(tmp_path, port, *_noauth2(tmp_path))
    _wait_up(proc, base)
    assert api.get(f"/servers/{server_id}").json()["server"]["status"] == "ACTIVE"
    assert len(api.get("/flavors").json()["flavors"]) == 7  # seeding is idempotent
    _stop(proc)


def test_default_start_checks_tokens_and_writes_clouds_yaml(tmp_path):
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    proc = _start(tmp_path, port)
    banner = _wait_up(proc, base) + "".join(proc.stdout.readline() for _ in range(2))
    clouds_yaml = tmp_path / "clouds.yaml"
    assert clouds_yaml.stat().st_mode & 0o777 == 0o600
    cloud = yaml.safe_load(clouds_yaml.read_text())["clouds"]["novalite"]
    assert cloud["auth"]["auth_url"] == f"{base}/identity/v3"
    assert cloud["region_name"] == "RegionOne" and cloud["identity_api_version"] == 3
    assert httpx.get(f"{base}/compute/v2.1/flavors").status_code == 401
    auth = {"auth": {"identity": {"methods": ["password"], "password": {"user": {
        "name": cloud["auth"]["username"], "password": cloud["auth"]["password"],
        "domain": {"name": "Default"}}}},
        "scope": {"project": {"name": "demo", "domain": {"name": "Default"}}}}}
    token = httpx.post(f"{base}/identity/v3/auth/tokens", json=auth).headers["X-Subject-Token"]
    flavors = httpx.get(f"{base}/compute/v2.1/flavors", headers={"X-Auth-Token": token})
    assert flavors.status_code == 200
    _stop(proc)
    assert f"export OS_CLOUD=novalite OS_CLIENT_CONFIG_FILE={clouds_yaml}" in banner

    proc = _start(tmp_path, port)  # the generated passwords survive a restart
    _wait_up(proc, base)
    assert yaml.safe_load(clouds_yaml.read_text())["clouds"]["novalite"] == cloud
    assert httpx.post(f"{base}/identity/v3/auth/tokens", json=auth).status_code == 201
    _stop(proc)


def test_an_unknown_filter_stops_start_up_with_a_clear_message(tmp_path):
    config = tmp_path / "novalite.conf"
    config.write_text("[filter_scheduler]\nenabled_filters = ComputeFilter,NoSuchFilter\n")
    result = subprocess.run(
        [sys.executable, "-m", "novalite.cmd.novalite", "all-in-one", "--state-dir",
         str(tmp_path), "--port", str(free_port()), "--config-file", str(config)],
        capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert "enabled_filters names NoSuchFilter" in result.stderr
    assert "Traceback" not in result.stderr
