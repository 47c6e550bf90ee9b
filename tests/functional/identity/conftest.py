"""A cloud whose APIs check real tokens, and a small client of its identity API."""

from __future__ import annotations

import httpx
import pytest


class Identity:
    def __init__(self, cloud) -> None:
        self.cloud = cloud
        self.http = httpx.Client(base_url=f"{cloud.base_url}/identity", timeout=30)
        self.passwords = cloud.aio.identity.passwords

    @staticmethod
    def password_body(user: str, password: str, project: str | None = "demo") -> dict:
        auth: dict = {"identity": {"methods": ["password"], "password": {"user": {
            "name": user, "password": password, "domain": {"name": "Default"}}}}}
        if project is not None:
            auth["scope"] = {"project": {"name": project, "domain": {"name": "Default"}}}
        return {"auth": auth}

    def login(self, user: str = "demo", project: str | None = None,
              password: str | None = None) -> tuple[str, dict]:
        """(token id, token body) for a bootstrap user, scoped to its own project."""
        project = project or user
        response = self.http.post("/v3/auth/tokens", json=self.password_body(
            user, password or self.passwords[user], project))
        assert response.status_code == 201, response.text
        return response.headers["X-Subject-Token"], response.json()["token"]

    def admin(self) -> httpx.Client:
        token, _ = self.login("admin")
        return httpx.Client(base_url=f"{self.cloud.base_url}/identity/v3", timeout=30,
                            headers={"X-Auth-Token": token})

    def as_token(self, token: str) -> httpx.Client:
        return httpx.Client(base_url=f"{self.cloud.base_url}/identity/v3", timeout=30,
                            headers={"X-Auth-Token": token})


@pytest.fixture
def keystone_cloud(conf, cloud_factory):
    conf.set_override("auth_strategy", "keystone", group="api")
    return cloud_factory(hosts=1)


@pytest.fixture
def identity(keystone_cloud) -> Identity:
    return Identity(keystone_cloud)
