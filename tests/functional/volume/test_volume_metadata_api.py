"""/volumes/{id}/metadata over real HTTP: merged, replaced and item by item."""

from __future__ import annotations

import httpx


def test_metadata_merged_replaced_and_by_item(cloud):
    client = httpx.Client(base_url=f"{cloud.base_url}/volume/v3", timeout=30)
    volume = client.post("/volumes", json={"volume": {"size": 1, "metadata": {"a": "1"}}})
    path = f"/volumes/{volume.json()['volume']['id']}/metadata"
    cloud.settle()
    assert client.post(path, json={"metadata": {"b": "2"}}).json() == {
        "metadata": {"a": "1", "b": "2"}}
    assert client.put(path, json={"metadata": {"c": "3"}}).json() == {"metadata": {"c": "3"}}
    assert client.put(f"{path}/d", json={"meta": {"d": "4"}}).json() == {"meta": {"d": "4"}}
    assert client.get(f"{path}/d").json() == {"meta": {"d": "4"}}
    assert client.delete(f"{path}/c").status_code == 200
    assert client.get(path).json() == {"metadata": {"d": "4"}}
    missing = client.get(f"{path}/c")
    assert missing.json()["itemNotFound"]["message"] == "Metadata item was not found"
    mismatch = client.put(f"{path}/d", json={"meta": {"e": "5"}})
    assert mismatch.json()["badRequest"]["message"] == "Request body and URI mismatch"
