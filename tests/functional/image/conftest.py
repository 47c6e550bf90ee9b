"""Image API clients for the all-in-one: admin, and members of two projects."""

from __future__ import annotations

import httpx
import pytest

PATCH = "application/openstack-images-v2.1-json-patch"


class Images:
    """A Glance v2 client speaking for one caller (noauth2 `user:project`, or admin)."""

    def __init__(self, base_url: str, token: str | None) -> None:
        headers = {"X-Auth-Token": token} if token else {}
        self.http = httpx.Client(base_url=f"{base_url}/image", headers=headers, timeout=60)

    def create(self, expected: int = 201, **body) -> dict:
        """Glance takes data only once both formats are set; default them."""
        body = {"disk_format": "raw", "container_format": "bare", **body}
        response = self.http.post("/v2/images", json=body)
        assert response.status_code == expected, response.text
        return response.json()

    def upload(self, image_id: str, data, expected: int = 204) -> httpx.Response:
        response = self.http.put(f"/v2/images/{image_id}/file", content=data,
                                 headers={"Content-Type": "application/octet-stream"})
        assert response.status_code == expected, response.text
        return response

    def show(self, image_id: str, expected: int = 200) -> dict:
        response = self.http.get(f"/v2/images/{image_id}")
        assert response.status_code == expected, response.text
        return response.json()

    def patch(self, image_id: str, ops: list, expected: int = 200) -> dict:
        response = self.http.patch(f"/v2/images/{image_id}", json=ops,
                                   headers={"Content-Type": PATCH})
        assert response.status_code == expected, response.text
        return response.json()

    def list(self, **params) -> dict:
        response = self.http.get("/v2/images", params=params)
        assert response.status_code == 200, response.text
        return response.json()

    def ids(self, **params) -> set[str]:
        return {i["id"] for i in self.list(**params)["images"]}


@pytest.fixture
def glance(cloud):
    """Clients by role: `admin`, `alice` (project p1), `bob` (project p2)."""
    return {"admin": Images(cloud.base_url, None),
            "alice": Images(cloud.base_url, "alice:p1"),
            "bob": Images(cloud.base_url, "bob:p2")}
