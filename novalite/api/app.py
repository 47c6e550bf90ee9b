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
from novalite.api.identity import faults as identity_faults
from novalite.api.identity.routes import PROFILE as IDENTITY
from novalite.api.identity.routes import ROUTES as IDENTITY_ROUTES
from novalite.api.identity.versions import root as identity_root
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
            handler = methods.get(request.method) or methods["GET"]  # HEAD without its own
            return await handler(request)
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


async def _identity_http_error(request: Request, exc: HTTPException) -> Response:
    message = {404: "The resource could not be found.",
               405: "The method is not allowed for the requested URL."}
    return identity_faults.fault_response(exc.status_code,
                                          message.get(exc.status_code, str(exc.detail)),
                                          dict(exc.headers or {}))


def build_app() -> Starlette:
    compute = Starlette(routes=_routes(COMPUTE_ROUTES, COMPUTE),
                        exception_handlers={HTTPException: _http_error})
    identity = Starlette(routes=_routes(IDENTITY_ROUTES, IDENTITY),
                         exception_handlers={HTTPException: _identity_http_error})
    # clients ask for the unversioned identity root without a trailing slash
    identity_bare = Route(IDENTITY.mount, endpoint(identity_root, IDENTITY, False))
    return Starlette(routes=[Mount(COMPUTE.mount, app=compute), identity_bare,
                             Mount(IDENTITY.mount, app=identity)],
                     exception_handlers={HTTPException: _http_error})
