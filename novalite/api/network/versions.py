"""The version document at / and the resource index at /v2.0."""

from __future__ import annotations

from novalite.api.request import ApiRequest, ApiResponse

COLLECTIONS = ("networks", "subnets", "subnetpools", "ports", "routers", "floatingips",
               "security-groups", "security-group-rules", "quotas", "extensions",
               "availability_zones")


def root(req: ApiRequest) -> ApiResponse:
    return ApiResponse(200, {"versions": [{
        "id": "v2.0", "status": "CURRENT",
        "links": [{"href": f"{req.base_url}/v2.0/", "rel": "self"}]}]})


def index(req: ApiRequest) -> ApiResponse:
    return ApiResponse(200, {"resources": [
        {"name": name.rstrip("s").replace("-", "_"), "collection": name,
         "links": [{"href": f"{req.base_url}/v2.0/{name}", "rel": "self"}]}
        for name in COLLECTIONS]})
