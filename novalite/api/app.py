"""The ASGI application: every API mounted under its devstack-style path."""

from __future__ import annotations

from collections import defaultdict

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount, Route

from novalite.api import faults
from novalite.api.compute.routes import PROFILE as COMPUTE
from novalite.api.compute.routes import ROUTES as COMPUTE_ROUTES
from novalite.api.placement import errors as placement_errors
from novalite.api.placement.root import versions as placement_root_handler
from novalite.api.placement.routes import PROFILE as PLACEMENT
from novalite.api.placement.routes import ROUTES as PLACEMENT_ROUTES
from novalite.api.profile import ApiProfile
from novalite.api.request import endpoint


def _routes(table: list, profile: ApiProfile) -> list[Route]:
    """One Starlette route per path, dispatching on method to the table's handlers."""
    by_path: dict[str, dict[str, object]] = defaultdict(dict)
    for path, method, handler, authenticated in table:
        by_path[path][method] = endpoint(handler, profile, authenticated)
    routes = []
    for path, methods in by_path.items():
        async def dispatch(request: Request, methods=methods) -> Response:
            return await methods[request.method](request)
        routes.append(Route(path, dispatch, methods=list(methods)))
    return routes


async def _http_error(request: Request, exc: HTTPException) -> Response:
    headers = dict(exc.headers or {})
    if exc.status_code == 405:
        return faults.fault_response(405, "The method is not allowed for the requested URL.",
                                     headers)
    if exc.status_code == 404:
        return faults.fault_response(404, "The resource could not be found.", headers)
    return faults.fault_response(exc.status_code, str(exc.detail), headers)


def build_app() -> Starlette:
    compute = Starlette(routes=_routes(COMPUTE_ROUTES, COMPUTE),
                        exception_handlers={HTTPException: _http_error})
    placement = Starlette(routes=_routes(PLACEMENT_ROUTES, PLACEMENT),
                          exception_handlers={HTTPException: placement_errors.http_error})
    # Placement's version document is also served at its mount without a trailing slash.
    placement_root = Route(PLACEMENT.mount, endpoint(placement_root_handler, PLACEMENT, False))
    return Starlette(routes=[Mount(COMPUTE.mount, app=compute), placement_root,
                             Mount(PLACEMENT.mount, app=placement)],
                     exception_handlers={HTTPException: _http_error})
