"""novalite-placement serves the placement API alone, as its own process."""

from __future__ import annotations

import httpx

from tests.api_process import serving


def test_novalite_placement_serves_the_placement_api_alone(tmp_path):
    with serving(tmp_path, "novalite-placement", "placement_listen placement_listen_port",
                 "/placement") as base:
        versions = httpx.get(f"{base}/placement")
        assert versions.json()["versions"][0]["id"] == "v1.0"
        made = httpx.post(f"{base}/placement/resource_providers", json={"name": "solo"},
                          headers={"OpenStack-API-Version": "placement 1.20"})
        assert made.status_code == 200, made.text
        missing = httpx.get(f"{base}/placement/resource_providers/nope")
        assert missing.status_code == 404 and "errors" in missing.json()
        assert httpx.get(f"{base}/compute/v2.1").status_code == 404
