"""The indexed router answers every path as Starlette's own router would."""

from __future__ import annotations

import asyncio
import json
import re

import pytest
from starlette.routing import Match

from novalite.api.app import _routes, build_app
from novalite.api.compute.routes import PROFILE as COMPUTE
from novalite.api.compute.routes import ROUTES as COMPUTE_ROUTES
from novalite.api.metadata.routes import PROFILE as METADATA
from novalite.api.metadata.routes import ROUTES as METADATA_ROUTES
from novalite.api.routing import IndexedRouter
from novalite.api.volume.routes import PROFILE as VOLUME
from novalite.api.volume.routes import ROUTES as VOLUME_ROUTES

TABLES = {"compute": (COMPUTE_ROUTES, COMPUTE), "volume": (VOLUME_ROUTES, VOLUME),
          "metadata": (METADATA_ROUTES, METADATA)}


def _chosen(routes, path: str, method: str) -> tuple[str, str | None]:
    """What a router given `routes` does with the request: the route it hands it to
    (a full match, else a partial one: a 405), or whether a trailing slash's
    redirect or a 404 answers."""
    scope = {"type": "http", "path": path, "root_path": "", "method": method}
    partial = None
    for route in routes:
        match, _ = route.matches(scope)
        if match is Match.FULL:
            return "route", route.path
        if match is Match.PARTIAL and partial is None:
            partial = route.path
    if partial is not None:
        return "405", partial
    other = path.rstrip("/") if path.endswith("/") else path + "/"
    if any(route.matches({**scope, "path": other})[0] is not Match.NONE for route in routes):
        return "redirect", None
    return "404", None


def _paths(routes: list) -> list[str]:
    """Each route's path with its parameters filled, with and without a trailing slash,
    and with a segment no route knows in each place."""
    found = set()
    for route in routes:
        concrete = re.sub(r"\{[^}:]+(:[^}]+)?\}", "x1", route.path)
        found |= {concrete, concrete.rstrip("/") + "/", concrete + "/nope"}
        segments = concrete.split("/")
        for i in range(1, len(segments)):
            found.add("/".join([*segments[:i], "unknown", *segments[i + 1:]]))
    return sorted(found | {"/", ""})


@pytest.mark.parametrize("api", TABLES)
def test_every_path_goes_where_starlette_would_send_it(api):
    table, profile = TABLES[api]
    routes = _routes(table, profile)
    indexed = IndexedRouter(routes)
    for path in _paths(routes):
        for method in ("GET", "POST", "PUT", "DELETE"):
            expected = _chosen(routes, path, method)
            assert _chosen(indexed._for(path).routes, path, method) == expected, (path, method)


def test_the_all_in_ones_mounts_and_roots_go_where_starlette_would_send_them():
    """Each API's mount, the root beside it (`GET /image`), and the console's websockets
    and pages: the top-level router indexes mounts too."""
    app = build_app()
    routes = app.routes
    assert isinstance(app.router, IndexedRouter)
    paths = _paths(routes) + ["/volume/v3/p1/volumes/x1", "/compute/v2.1/servers",
                              "/placement/resource_providers", "/volumes", "/v2.1"]
    for path in paths:
        for method in ("GET", "POST"):
            expected = _chosen(routes, path, method)
            assert _chosen(app.router._for(path).routes, path, method) == expected, path
    assert len(app.router._for("/volume/v3/p1/volumes").routes) == 1  # its mount alone


def _answer(app, method: str, path: str) -> tuple[int, dict[str, str], dict]:
    """What `app` sends for a bodiless request: status, headers, JSON body."""
    sent: list[dict] = []

    async def receive() -> dict:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict) -> None:
        sent.append(message)

    scope = {"type": "http", "method": method, "path": path, "raw_path": path.encode(),
             "root_path": "", "query_string": b"", "headers": [], "scheme": "http",
             "server": ("127.0.0.1", 8774), "client": ("127.0.0.1", 1234),
             "http_version": "1.1", "asgi": {"version": "3.0"}}
    asyncio.run(app(scope, receive, send))
    start, body = sent[0], b"".join(m.get("body", b"") for m in sent[1:])
    headers = {k.decode(): v.decode() for k, v in start["headers"]}
    return start["status"], headers, json.loads(body)


@pytest.mark.parametrize(("path", "method", "status", "body"), [
    ("/nope", "GET", 404, {"itemNotFound": {  # under no API: the all-in-one's router
        "code": 404, "message": "The resource could not be found."}}),
    ("/compute/v2.1/nope", "GET", 404, {"itemNotFound": {
        "code": 404, "message": "The resource could not be found."}}),
    ("/compute/v2.1/flavors", "PATCH", 405, {"badMethod": {
        "code": 405, "message": "The method is not allowed for the requested URL."}}),
    ("/volume/v3/p1/volumes", "PATCH", 405, {"badMethod": {
        "code": 405, "message": "The method is not allowed for the requested URL."}}),
    ("/networking/v2.0/nope", "GET", 404, {"NeutronError": {
        "type": "HTTPNotFound", "message": "The resource could not be found.",
        "detail": ""}}),
    ("/networking/v2.0/networks", "PATCH", 405, {"NeutronError": {
        "type": "HTTPMethodNotAllowed",
        "message": "The method is not allowed for the requested URL.", "detail": ""}}),
    ("/identity/v3/nope", "GET", 404, {"error": {
        "code": 404, "message": "The resource could not be found.", "title": "Not Found"}}),
])
def test_each_api_answers_its_routing_errors_in_its_own_format(path, method, status, body):
    """The API's router answers an unknown path or method as the API's errors look, and
    a 405 says which methods the path takes."""
    found_status, headers, found = _answer(build_app(), method, path)
    assert (found_status, found) == (status, body)
    if status == 405:
        assert set(headers["allow"].split(", ")) == {"GET", "HEAD", "POST"}


def test_placements_routing_errors_are_placements():
    status, headers, found = _answer(build_app(), "PATCH", "/placement/resource_providers")
    assert status == 405 and set(headers["allow"].split(", ")) == {"GET", "POST"}
    assert found["errors"][0]["title"] == "Method Not Allowed"
