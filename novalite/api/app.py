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
from novalite.api.faults import HTTPFault
from novalite.api.image import versions as image_versions
from novalite.api.image.routes import PROFILE as IMAGE
from novalite.api.image.routes import ROUTES as IMAGE_ROUTES
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


def _profile_error(profile: ApiProfile):
    """Routing errors (unknown path, wrong method) in the API's own error format."""

    async def handle(request: Request, exc: HTTPException) -> Response:
        messages = {404: "The resource could not be found.",
                    405: "The method is not allowed for the requested URL."}
        return profile.fault(HTTPFault(exc.status_code, messages.get(exc.status_code,
                                                                     str(exc.detail))), "")

    return handle


def build_app() -> Starlette:
    compute = Starlette(routes=_routes(COMPUTE_ROUTES, COMPUTE),
                        exception_handlers={HTTPException: _http_error})
    image = Starlette(routes=_routes(IMAGE_ROUTES, IMAGE),
                      exception_handlers={HTTPException: _profile_error(IMAGE)})
    # Clients ask for the image API's root without the trailing slash (`GET /image`).
    image_root = _routes([(IMAGE.mount, "GET", image_versions.index, False)], IMAGE)
    return Starlette(routes=[Mount(COMPUTE.mount, app=compute), *image_root,
                             Mount(IMAGE.mount, app=image)],
                     exception_handlers={HTTPException: _http_error})
