"""Glance's version document, answered without authentication at the unversioned root and
at /v2: the current v2.16 first, then every older v2 minor as SUPPORTED."""

from __future__ import annotations

from novalite.api.request import ApiRequest, ApiResponse

CURRENT = 16


def _version(minor: int, base: str) -> dict:
    return {"id": f"v2.{minor}", "status": "CURRENT" if minor == CURRENT else "SUPPORTED",
            "links": [{"rel": "self", "href": f"{base}/v2/"}]}


def document(base: str) -> dict:
    return {"versions": [_version(m, base) for m in range(CURRENT, -1, -1)]}


def index(req: ApiRequest) -> ApiResponse:
    """300 Multiple Choices, as Glance answers at its root."""
    return ApiResponse(300, document(req.base_url))


def versions(req: ApiRequest) -> ApiResponse:
    """GET /versions: the same document, with 200."""
    return ApiResponse(200, document(req.base_url))
