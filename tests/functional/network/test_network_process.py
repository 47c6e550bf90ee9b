"""novalite-network serves the network API alone, as its own process."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import httpx

from tests.ports import free_port

BIN = Path(sys.executable).parent


def test_novalite_network_serves_the_network_api_alone(tmp_path):
    port = free_port()
    config = tmp_path / "novalite.conf"
    config.write_text(f"[DEFAULT]\nstate_path = {tmp_path}\nbind_host = 127.0.0.1\n"
                      f"bind_port = {port}\n[api]\nauth_strategy = noauth2\n")
    subprocess.run([BIN / "novalite-manage", "--config-file", config, "db", "sync"],
                   check=True, capture_output=True)
    proc = subprocess.Popen([BIN / "novalite-network", "--config-file", config],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        base = f"http://127.0.0.1:{port}/networking"
        deadline = time.monotonic() + 30
        while True:
            try:
                versions = httpx.get(base, timeout=5)
                break
            except httpx.TransportError:
                assert proc.poll() is None and time.monotonic() < deadline
                time.sleep(0.1)
        assert versions.json()["versions"][0]["id"] == "v2.0"
        made = httpx.post(f"{base}/v2.0/networks", json={"network": {"name": "solo"}})
        assert made.status_code == 201, made.text
        assert httpx.get(f"http://127.0.0.1:{port}/compute/v2.1").status_code == 404
    finally:
        proc.terminate()
        proc.wait(30)
