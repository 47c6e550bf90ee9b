"""What the network API's functional tests assert on its answers."""

from __future__ import annotations

import httpx


def error(response: httpx.Response, code: int, kind: str) -> str:
    """The message of a NeutronError body of this status and type."""
    assert response.status_code == code, response.text
    body = response.json()["NeutronError"]
    assert body["type"] == kind and body["detail"] == ""
    return body["message"]
