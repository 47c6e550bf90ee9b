"""The network API's clients for its functional tests: the admin's and a demo member's."""

from __future__ import annotations

import httpx
import pytest

from novalite.identity import bootstrap


@pytest.fixture
def net(cloud):
    return httpx.Client(base_url=f"{cloud.base_url}/networking/v2.0", timeout=30)


@pytest.fixture
def user(cloud):
    """A member of the demo project (noauth2 token user:project)."""
    demo = bootstrap.project_ids("demo")[0]
    return httpx.Client(base_url=f"{cloud.base_url}/networking/v2.0", timeout=30,
                        headers={"X-Auth-Token": f"demo:{demo}"}), demo
