"""Route matching that tries only the routes a path can match.

Starlette's router tries each route's regular expression in turn: a request for a path
late in the compute API's table tried some sixty of them, and on the volume API's 479
routes, hundreds; with the middleware, a sixth of a flavor's GET. Here the routes are
sorted by the literal segments their paths begin with: a request tries those whose
first segments are its own or parameters, in the table's order, so it is answered as
Starlette's own router would answer it (the first full match; else a 405 from a route
of another method; else a trailing slash's redirect or a 404). The all-in-one's own
router, over each API's mount and root, is one too: a volume request tried ten mounts
and roots before its own.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

from starlette._utils import get_route_path
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Mount, Router
from starlette.types import Receive, Scope, Send

# How an API answers a path it does not know (404) or a method a path does not take (405)
ErrorHandler = Callable[[Request, HTTPException], Awaitable[Response]]

DEPTH = 4  # segments indexed: the volume API's routes differ first in the third
_END = ""  # where a path has no more segments (a path's trailing slash is ignored)


def _signature(route: BaseRoute) -> tuple[str | None, ...]:
    """A route's first DEPTH segments: the literal ones, None for a parameter's (and for
    all that follow a `{name:path}` one, which spans segments, or a mount's path, which
    any path below it matches)."""
    path = getattr(route, "path", "").strip("/")
    mount = isinstance(route, Mount)
    found: list[str | None] = []
    for segment in path.split("/") if path or not mount else []:
        if ":path}" in segment:
            break
        found.append(None if "{" in segment else segment)
    else:
        if not mount:
            found.append(_END)
    found += [None] * DEPTH
    return tuple(found[:DEPTH])


class IndexedRouter(Router):
    """`on_error`, if given, answers the routing errors raised below it (as Starlette's
    ExceptionMiddleware would, without watching each response's messages to do so)."""

    def __init__(self, routes: Sequence[BaseRoute], on_error: ErrorHandler | None = None
                 ) -> None:
        super().__init__(routes=list(routes))
        self._on_error = on_error
        self._signatures = [_signature(route) for route in routes]
        self._literals = [{sig[i] for sig in self._signatures} - {None} for i in range(DEPTH)]
        self._narrowed: dict[tuple[str | None, ...], Router] = {}

    def _for(self, path: str) -> Router:
        """The routes `path` can match, as a router of their own (one per combination of
        known segments: unknown ones, IDs, all look alike)."""
        segments = [*path.strip("/").split("/"), _END][:DEPTH]
        segments += [_END] * (DEPTH - len(segments))
        key = tuple(seg if seg in self._literals[i] else None for i, seg in enumerate(segments))
        router = self._narrowed.get(key)
        if router is None:
            routes: list[BaseRoute] = [
                route for route, sig in zip(self.routes, self._signatures, strict=True)
                if all(want is None or want == got for want, got in zip(sig, key, strict=True))]
            router = Router(routes=routes, redirect_slashes=self.redirect_slashes,
                            default=self.default)
            self._narrowed[key] = router
        return router

    async def app(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await super().app(scope, receive, send)
            return
        scope.setdefault("router", self)
        try:
            await self._for(get_route_path(scope)).app(scope, receive, send)
        except HTTPException as exc:
            if self._on_error is None:
                raise
            response = await self._on_error(Request(scope, receive, send), exc)
            await response(scope, receive, send)
