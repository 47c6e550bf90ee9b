"""GET /placement: the version document (no authentication needed)."""

from __future__ import annotations

from novalite.api.placement import microversions
from novalite.api.request import ApiRequest, ApiResponse


def versions(req: ApiRequest) -> ApiResponse:
    return ApiResponse(200, {"versions": [{
        "id": "v1.0",
        "min_version": microversions.fmt(microversions.MIN_VERSION),
        "max_version": microversions.fmt(microversions.MAX_VERSION),
        "status": "CURRENT",
        "links": [{"rel": "self", "href": ""}],
    }]})
