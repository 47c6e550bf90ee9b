"""Only the HTTP app (no compute services) on a migrated SQLite database."""

from __future__ import annotations

import httpx
import pytest

from novalite import http_server


class Placement(httpx.Client):
    """An HTTP client of /placement that asks for `version` unless told otherwise."""

    def __init__(self, server_url: str, version: str = "latest") -> None:
        super().__init__(base_url=f"{server_url}/placement", timeout=30,
                         headers={"OpenStack-API-Version": f"placement {version}"})
        self.server_url = server_url
        self.others: list[Placement] = []

    def at(self, version: str) -> Placement:
        """A client of the same server asking for another microversion."""
        other = Placement(self.server_url, version)
        self.others.append(other)
        return other

    def close(self) -> None:
        for other in self.others:
            other.close()
        super().close()

    def provider(self, name: str = "rp", **body) -> dict:
        response = self.post("/resource_providers", json={"name": name, **body})
        assert response.status_code == 200, response.text
        return response.json()

    def inventory(self, rp: dict, **classes: dict | int) -> int:
        """Set the provider's inventory; returns its new generation."""
        invs = {rc: v if isinstance(v, dict) else {"total": v} for rc, v in classes.items()}
        current = self.get(f"/resource_providers/{rp['uuid']}").json()["generation"]
        response = self.put(f"/resource_providers/{rp['uuid']}/inventories",
                            json={"resource_provider_generation": current,
                                  "inventories": invs})
        assert response.status_code == 200, response.text
        return response.json()["resource_provider_generation"]

    def claim(self, consumer: str, allocations: dict, generation=None, **extra):
        return self.put(f"/allocations/{consumer}", json={
            "allocations": {rp: {"resources": res} for rp, res in allocations.items()},
            "project_id": "p", "user_id": "u", "consumer_generation": generation,
            "consumer_type": "INSTANCE", **extra})


@pytest.fixture
def server_url(db):
    server = http_server.make_server("127.0.0.1", 0)
    http_server.start_in_thread(server)
    yield f"http://127.0.0.1:{http_server.bound_port(server)}"
    server.should_exit = True


@pytest.fixture
def api(server_url):
    with Placement(server_url) as client:
        yield client


def error_of(response: httpx.Response) -> dict:
    return response.json()["errors"][0]
