"""Cinder's version document: at the unversioned root (300 Multiple Choices, as Cinder
answers there) and at /v3/ (200), with the microversion range clients negotiate in."""

from __future__ import annotations

from typing import Any

from novalite.api.microversion import fmt
from novalite.api.request import ApiRequest, ApiResponse
from novalite.api.volume import microversions


def _document(base: str) -> dict[str, Any]:
    return {"versions": [{
        "id": "v3.0", "status": "CURRENT", "updated": "2023-08-31T00:00:00Z",
        "version": fmt(microversions.MAX_VERSION),
        "min_version": fmt(microversions.MIN_VERSION),
        "links": [{"rel": "describedby", "type": "text/html",
                   "href": "https://docs.openstack.org/"},
                  {"rel": "self", "href": f"{base}/v3/"}],
        "media-types": [{"base": "application/json",
                         "type": "application/vnd.openstack.volume+json;version=3"}]}]}


def root(req: ApiRequest) -> ApiResponse:
    return ApiResponse(300, _document(req.base_url))


def index(req: ApiRequest) -> ApiResponse:
    return ApiResponse(200, _document(req.base_url))
