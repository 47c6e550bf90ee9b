"""The ASGI application: every API mounted under its devstack-style path."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware.errors import ServerErrorMiddleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from novalite.api import faults
from novalite.api.compute.routes import PROFILE as COMPUTE
from novalite.api.compute.routes import ROUTES as COMPUTE_ROUTES
from novalite.api.compute.unserved import routes as compute_unserved
from novalite.api.console import proxy as console_proxy
from novalite.api.faults import HTTPFault
from novalite.api.identity.routes import PROFILE as IDENTITY
from novalite.api.identity.routes import ROUTES as IDENTITY_ROUTES
from novalite.api.identity.versions import root as identity_root
from novalite.api.image import versions as image_versions
from novalite.api.image.routes import PROFILE as IMAGE
from novalite.api.image.routes import ROUTES as IMAGE_ROUTES
from novalite.api.metadata.routes import PROFILE as METADATA
from novalite.api.metadata.routes import ROUTES as METADATA_ROUTES
from novalite.api.network import versions as network_versions
from novalite.api.network.routes import PROFILE as NETWORK
from novalite.api.network.routes import ROUTES as NETWORK_ROUTES
from novalite.api.placement import errors as placement_errors
from novalite.api.placement.root import versions as placement_root_handler
from novalite.api.placement.routes import PROFILE as PLACEMENT
from novalite.api.placement.routes import ROUTES as PLACEMENT_ROUTES
from novalite.api.profile import ApiProfile
from novalite.api.request import endpoint
from novalite.api.routing import IndexedRouter
from novalite.api.volume import versions as volume_versions
from novalite.api.volume.routes import PROFILE as VOLUME
from novalite.api.volume.routes import ROUTES as VOLUME_ROUTES


class _ByMethod:
    """A path's handlers by method, as a plain ASGI app: a function given to Route is
    wrapped in Starlette's request_response, which watches every response for an
    exception to hand its handlers, and the endpoints let none out."""

    def __init__(self, methods: dict[str, Callable[[Request], Awaitable[Response]]]) -> None:
        self.methods = methods

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive, send)
        handler = self.methods.get(request.method) or self.methods["GET"]  # HEAD
        response = await handler(request)
        await response(scope, receive, send)


def _routes(table: list, profile: ApiProfile) -> list[Route]:
    """One Starlette route per path, dispatching on method to the table's handlers."""
    by_path: dict[str, dict[str, Callable[[Request], Awaitable[Response]]]] = \
        defaultdict(dict)
    for path, method, handler, authenticated in table:
        by_path[path][method] = endpoint(handler, profile, authenticated)
    return [Route(path, _ByMethod(methods), methods=list(methods))
            for path, methods in by_path.items()]


# What an unknown path or an unserved method answers, in every API's own error format.
ROUTING_ERRORS = {404: "The resource could not be found.",
                  405: "The method is not allowed for the requested URL."}


def _routing_message(exc: HTTPException) -> str:
    return ROUTING_ERRORS.get(exc.status_code, str(exc.detail))


async def _http_error(request: Request, exc: Exception) -> Response:
    # registered for HTTPException only (Starlette types handlers for any exception)
    assert isinstance(exc, HTTPException)
    return faults.fault_response(exc.status_code, _routing_message(exc),
                                 dict(exc.headers or {}))


def _profile_error(profile: ApiProfile):
    """Routing errors (unknown path, wrong method) in the API's own error format."""

    async def handle(request: Request, exc: HTTPException) -> Response:
        response = profile.fault(HTTPFault(exc.status_code, _routing_message(exc)), "")
        response.headers.update(exc.headers or {})  # a 405's Allow
        return response

    return handle


def _mounted(table: list, profile: ApiProfile, on_error, root_handler=None) -> list:
    """An API under its mount; clients also ask for its root without the trailing slash
    (`GET /image`, `GET /placement`), which is answered, not redirected."""
    app = IndexedRouter(_routes(table, profile), on_error)
    root = [Route(profile.mount, endpoint(root_handler, profile, False))] if root_handler \
        else []
    return [*root, Mount(profile.mount, app=app)]


class _Served(Starlette):
    """Starlette without the ExceptionMiddleware it puts under every app, which makes a
    Request and wraps each send of every response to answer exceptions: its router
    answers the routing errors, and the endpoints let no other out (an escaped one is
    still a 500 from ServerErrorMiddleware)."""

    def build_middleware_stack(self) -> ASGIApp:
        return ServerErrorMiddleware(app=self.router)


def _indexed(routes: list, on_error: Any) -> Starlette:
    """Starlette, its routes (the mounts of APIs and their roots) tried by index, its
    unknown paths answered by `on_error`."""
    app = _Served()
    app.router = IndexedRouter(routes, on_error)
    return app


def build_network_app() -> Starlette:
    """The network API alone, as novalite-network serves it (Neutron's own port)."""
    return _indexed(_mounted(NETWORK_ROUTES, NETWORK, _profile_error(NETWORK),
                             network_versions.root), _profile_error(NETWORK))


def _placement() -> list:
    return _mounted(PLACEMENT_ROUTES, PLACEMENT, placement_errors.http_error,
                    placement_root_handler)


def build_placement_app() -> Starlette:
    """The placement API alone, as novalite-placement serves it (upstream's placement-api),
    so that placement's requests do not queue behind the compute API's."""
    return _indexed(_placement(), placement_errors.http_error)


def build_app() -> Starlette:
    return _indexed([
        *_mounted(COMPUTE_ROUTES + compute_unserved(COMPUTE_ROUTES), COMPUTE, _http_error),
        *_mounted(IDENTITY_ROUTES, IDENTITY, _profile_error(IDENTITY), identity_root),
        *_mounted(IMAGE_ROUTES, IMAGE, _profile_error(IMAGE), image_versions.index),
        *_placement(),
        *_mounted(NETWORK_ROUTES, NETWORK, _profile_error(NETWORK), network_versions.root),
        *_mounted(VOLUME_ROUTES, VOLUME, _profile_error(VOLUME), volume_versions.root),
        *_mounted(METADATA_ROUTES, METADATA, _profile_error(METADATA)),
        *console_proxy.routes(),
    ], _http_error)
