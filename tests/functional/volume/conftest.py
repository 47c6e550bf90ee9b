"""The volume API as the demo project's member sees it at microversion 3.70; a module
that needs another caller or version defines its own `client`."""

from __future__ import annotations

import httpx
import pytest

from novalite.identity import bootstrap


@pytest.fixture
def client(cloud):
    demo = bootstrap.project_ids("demo")[0]
    return httpx.Client(base_url=f"{cloud.base_url}/volume/v3", timeout=30,
                        headers={"X-Auth-Token": f"demo:{demo}",
                                 "OpenStack-API-Version": "volume 3.70"})
