"""Requests to the process's own app without a socket: served in the calling thread as
the network would have them served (status, headers, faults, bodies either way), one
may make another, and what a request sets stays with it."""

from __future__ import annotations

import asyncio
import threading

import pytest
from starlette.applications import Starlette
from starlette.routing import Route

from novalite import context as ctx_mod
from novalite.api.placement.routes import PROFILE
from novalite.api.request import ApiRequest, ApiResponse, endpoint, streams_body
from novalite.clients.in_process import AppPool, Suspended


def _app(*routes: tuple[str, str, object]) -> Starlette:
    return Starlette(routes=[Route(path, endpoint(handler, PROFILE, authenticated=False),
                                   methods=[method])
                             for path, method, handler in routes])


def test_a_request_is_served_in_the_calling_thread(conf):
    served = []

    def handler(req: ApiRequest) -> ApiResponse:
        served.append((threading.get_ident(), req.body, req.query.get("q")))
        return ApiResponse(201, {"made": req.body["name"]}, {"Location": "/x/1"})

    answer = AppPool(_app(("/x", "POST", handler)), "127.0.0.1", 8778).request(
        "POST", "/x?q=1", b'{"name": "a"}', {"Content-Type": "application/json"})
    assert served == [(threading.get_ident(), {"name": "a"}, "1")]
    assert (answer.status, answer.body) == (201, b'{"made":"a"}')
    assert answer.headers["location"] == "/x/1"
    assert answer.headers["x-openstack-request-id"].startswith("req-")


def test_a_fault_is_answered_in_the_apis_format(conf):
    def handler(req: ApiRequest) -> ApiResponse:
        raise ValueError("a bug")

    answer = AppPool(_app(("/x", "GET", handler)), "127.0.0.1", 8778).request(
        "GET", "/x", None, {})
    assert answer.status == 500
    assert b"errors" in answer.body  # placement's error document


def test_an_upload_and_a_download_go_whole(conf):
    """A streamed body is handed over whole either way, and not held to the size limit
    of a JSON body."""
    conf.set_override("max_request_body_size", 10, group="oslo_middleware")

    @streams_body
    def handler(req: ApiRequest) -> ApiResponse:
        data = b"".join(req.body)
        return ApiResponse(200, stream=iter([data[:5], data[5:]]),
                           media_type="application/octet-stream")

    answer = AppPool(_app(("/file", "PUT", handler)), "127.0.0.1", 8778).request(
        "PUT", "/file", b"x" * 100, {})
    assert (answer.status, answer.body) == (200, b"x" * 100)
    assert answer.headers["content-type"] == "application/octet-stream"


def test_a_handler_may_call_the_app_again(conf):
    pool: list[AppPool] = []

    def inner(req: ApiRequest) -> ApiResponse:
        return ApiResponse(200, {"inner": threading.get_ident()})

    def outer(req: ApiRequest) -> ApiResponse:
        nested = pool[0].request("GET", "/inner", None, {})
        return ApiResponse(200, {"outer": nested.status, "body": nested.body.decode()})

    pool.append(AppPool(_app(("/inner", "GET", inner), ("/outer", "GET", outer)),
                        "127.0.0.1", 8778))
    answer = pool[0].request("GET", "/outer", None, {})
    assert answer.status == 200
    assert answer.body.decode() == (
        f'{{"outer":200,"body":"{{\\"inner\\":{threading.get_ident()}}}"}}')


def test_what_a_request_sets_stays_with_it(conf):
    caller = ctx_mod.RequestContext(request_id="req-caller")
    token = caller.activate()
    try:
        def handler(req: ApiRequest) -> ApiResponse:
            return ApiResponse(200, {"request_id": ctx_mod.current().request_id})

        answer = AppPool(_app(("/x", "GET", handler)), "127.0.0.1", 8778).request(
            "GET", "/x", None, {})
        assert b"req-caller" not in answer.body
        assert ctx_mod.current() is caller
    finally:
        ctx_mod.reset(token)


def test_an_app_that_waits_is_refused():
    async def app(scope, receive, send):
        await asyncio.sleep(0)

    with pytest.raises(Suspended, match="GET /x"):
        AppPool(app, "127.0.0.1", 8778).request("GET", "/x", None, {})
