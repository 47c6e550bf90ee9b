"""novalite-network serves the network API alone, as its own process."""

from __future__ import annotations

import httpx

from tests.api_process import serving


def test_novalite_network_serves_the_network_api_alone(tmp_path):
    with serving(tmp_path, "novalite-network", "bind_host bind_port", "/networking") as base:
        versions = httpx.get(f"{base}/networking")
        assert versions.json()["versions"][0]["id"] == "v2.0"
        made = httpx.post(f"{base}/networking/v2.0/networks", json={"network": {"name": "solo"}})
        assert made.status_code == 201, made.text
        assert httpx.get(f"{base}/compute/v2.1").status_code == 404
