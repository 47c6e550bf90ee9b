"""Version discovery documents; answered without authentication, as Nova does."""

from __future__ import annotations

from novalite.api.compute import microversions
from novalite.api.request import ApiRequest, ApiResponse

_V2 = {"id": "v2.0", "status": "SUPPORTED", "version": "", "min_version": "",
       "updated": "2011-01-21T11:33:21Z"}
_V21 = {"id": "v2.1", "status": "CURRENT", "updated": "2013-07-23T11:33:21Z"}


def _v21(base: str) -> dict:
    return {**_V21, "version": microversions.fmt(microversions.MAX_VERSION),
            "min_version": microversions.fmt(microversions.MIN_VERSION),
            "links": [{"rel": "self", "href": f"{base}/v2.1/"}]}


def _v2(base: str) -> dict:
    return {**_V2, "links": [{"rel": "self", "href": f"{base}/v2/"}]}


def _detailed(doc: dict, media_version: str) -> dict:
    return {**doc,
            "links": [*doc["links"], {"rel": "describedby", "type": "text/html",
                                      "href": "http://docs.openstack.org/"}],
            "media-types": [{"base": "application/json",
                             "type": f"application/vnd.openstack.compute+json;"
                                     f"version={media_version}"}]}


def root(req: ApiRequest) -> ApiResponse:
    return ApiResponse(200, {"versions": [_v2(req.base_url), _v21(req.base_url)]})


def show_v21(req: ApiRequest) -> ApiResponse:
    return ApiResponse(200, {"version": _detailed(_v21(req.base_url), "2.1")})


def show_v2(req: ApiRequest) -> ApiResponse:
    return ApiResponse(200, {"version": _detailed(_v2(req.base_url), "2")})
