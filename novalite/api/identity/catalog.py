"""/v3/services, /v3/endpoints and /v3/regions (read-only: bootstrap writes them)."""

from __future__ import annotations

from novalite.api.identity import access, views
from novalite.api.request import ApiRequest, ApiResponse
from novalite.identity import catalog


def list_services(req: ApiRequest) -> ApiResponse:
    access.enforce(req.ctx, "identity:list_services")
    found = catalog.list_services(req.query.get("type"), req.query.get("name"))
    return ApiResponse(200, views.collection(req, "services", found))


def show_service(req: ApiRequest) -> ApiResponse:
    access.enforce(req.ctx, "identity:get_service")
    service = catalog.get_service(req.params["service_id"])
    return ApiResponse(200, {"service": views.entity(req, "services", service)})


def list_endpoints(req: ApiRequest) -> ApiResponse:
    access.enforce(req.ctx, "identity:list_endpoints")
    found = catalog.list_endpoints(req.query.get("service_id"), req.query.get("interface"),
                                   req.query.get("region_id"))
    return ApiResponse(200, views.collection(req, "endpoints", found))


def show_endpoint(req: ApiRequest) -> ApiResponse:
    access.enforce(req.ctx, "identity:get_endpoint")
    endpoint = catalog.get_endpoint(req.params["endpoint_id"])
    return ApiResponse(200, {"endpoint": views.entity(req, "endpoints", endpoint)})


def list_regions(req: ApiRequest) -> ApiResponse:
    access.enforce(req.ctx, "identity:list_regions")
    return ApiResponse(200, views.collection(req, "regions", catalog.list_regions()))


def show_region(req: ApiRequest) -> ApiResponse:
    access.enforce(req.ctx, "identity:get_region")
    region = catalog.get_region(req.params["region_id"])
    return ApiResponse(200, {"region": views.entity(req, "regions", region)})
