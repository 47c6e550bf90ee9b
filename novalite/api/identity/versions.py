"""Version discovery, answered without a token (clients call it before they have one)."""

from __future__ import annotations

from novalite.api.request import ApiRequest, ApiResponse


def _v3(req: ApiRequest) -> dict:
    return {"id": "v3.14", "status": "stable", "updated": "2020-04-07T00:00:00Z",
            "links": [{"rel": "self", "href": f"{req.base_url}/v3/"}],
            "media-types": [{"base": "application/json",
                             "type": "application/vnd.openstack.identity-v3+json"}]}


def root(req: ApiRequest) -> ApiResponse:
    return ApiResponse(300, {"versions": {"values": [_v3(req)]}})


def show_v3(req: ApiRequest) -> ApiResponse:
    return ApiResponse(200, {"version": _v3(req)})
