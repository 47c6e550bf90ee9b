"""novalite-placement serves the placement API alone, as its own process."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import httpx

from tests.ports import free_port
from tests.waiting import wait_for

BIN = Path(sys.executable).parent


def test_novalite_placement_serves_the_placement_api_alone(tmp_path):
    port = free_port()
    config = tmp_path / "novalite.conf"
    config.write_text(f"[DEFAULT]\nstate_path = {tmp_path}\nplacement_listen = 127.0.0.1\n"
                      f"placement_listen_port = {port}\n[api]\nauth_strategy = noauth2\n")
    subprocess.run([BIN / "novalite-manage", "--config-file", config, "db", "sync"],
                   check=True, capture_output=True)
    proc = subprocess.Popen([BIN / "novalite-placement", "--config-file", config],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        base = f"http://127.0.0.1:{port}"

        def root():
            assert proc.poll() is None, proc.stderr.read().decode()
            return httpx.get(f"{base}/placement", timeout=5)

        versions = wait_for(root, timeout=30, interval=0.1, ignore=(httpx.TransportError,),
                            what="novalite-placement answering")
        assert versions.json()["versions"][0]["id"] == "v1.0"
        made = httpx.post(f"{base}/placement/resource_providers", json={"name": "solo"},
                          headers={"OpenStack-API-Version": "placement 1.20"})
        assert made.status_code == 200, made.text
        missing = httpx.get(f"{base}/placement/resource_providers/nope")
        assert missing.status_code == 404 and "errors" in missing.json()
        assert httpx.get(f"{base}/compute/v2.1").status_code == 404
    finally:
        proc.terminate()
        proc.wait(30)
