"""The wrapper every handler runs in: ids, auth, microversion, body, logging, faults."""

from __future__ import annotations

import dataclasses
import json
import logging
import re
import time
from collections.abc import Callable
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from novalite import context as ctx_mod
from novalite import exception
from novalite.api import auth, faults
from novalite.api.profile import ApiProfile
from novalite.conf import CONF

LOG = logging.getLogger("novalite.api")

_REQUEST_ID = re.compile(r"^req-[a-f0-9]{8}(-[a-f0-9]{4}){3}-[a-f0-9]{12}$")


@dataclasses.dataclass
class ApiRequest:
    ctx: ctx_mod.RequestContext
    version: tuple[int, int]
    params: dict[str, str]
    query: Any  # starlette QueryParams (multi-dict)
    body: Any
    base_url: str  # e.g. http://host:port/compute
    headers: Any = None  # starlette Headers (identity reads X-Subject-Token)

    def at_least(self, version: str) -> bool:
        major, minor = version.split(".")
        return self.version >= (int(major), int(minor))


@dataclasses.dataclass
class ApiResponse:
    status: int
    body: Any = None
    headers: dict[str, str] = dataclasses.field(default_factory=dict)


Handler = Callable[[ApiRequest], ApiResponse]


def _base_url(request: Request, mount: str) -> str:
    if CONF.api.public_endpoint:
        return CONF.api.public_endpoint.rstrip("/") + mount
    return f"{request.url.scheme}://{request.url.netloc}{mount}"


def _parse_body(raw: bytes) -> Any:
    if not raw:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        raise faults.HTTPFault(400, "Malformed request body") from None


def _error(exc: Exception, request_id: str) -> faults.HTTPFault:
    if isinstance(exc, faults.HTTPFault):
        return exc
    if isinstance(exc, exception.NovaliteException) and exc.safe:
        return faults.HTTPFault(exc.code, exc.format_message(),
                                getattr(exc, "error_code", None))
    LOG.exception("Unexpected error handling the request")
    return faults.HTTPFault(500, faults.UNEXPECTED.format(request_id=request_id))


def endpoint(handler: Handler, profile: ApiProfile, authenticated: bool = True) -> Callable:
    """Turn a plain handler into a Starlette endpoint with the common behaviour."""

    async def run(request: Request) -> Response:
        started = time.perf_counter()
        request_id = ctx_mod.generate_request_id()
        ctx = ctx_mod.RequestContext(request_id=request_id)
        incoming = request.headers.get("x-openstack-request-id", "")
        ctx.global_request_id = incoming if _REQUEST_ID.match(incoming) else None
        token = ctx.activate()
        version = profile.negotiate({})
        try:
            if authenticated:
                ctx = await run_in_threadpool(auth.authenticate, request, ctx)  # reads the DB
                ctx.activate()
            version = profile.negotiate(request.headers)
            req = ApiRequest(ctx, version, dict(request.path_params), request.query_params,
                             _parse_body(await request.body()),
                             _base_url(request, profile.mount), request.headers)
            result = await run_in_threadpool(_call, handler, req)
            response = (Response(status_code=result.status) if result.body is None
                        else JSONResponse(result.body, status_code=result.status))
            response.headers.update(result.headers)
        except Exception as exc:
            error = _error(exc, request_id)
            response = profile.fault(error, request_id)
            if error.code == 401:  # where to get a token, as keystonemiddleware says
                response.headers["WWW-Authenticate"] = (
                    f'Keystone uri="{_base_url(request, "/identity")}"')
        response.headers.update(profile.version_headers(version))
        response.headers["x-openstack-request-id"] = request_id
        response.headers["x-compute-request-id"] = request_id
        LOG.info('%s "%s %s" status: %s len: %s microversion: %s time: %.4f',
                 request.client.host if request.client else "-", request.method,
                 request.url.path + (f"?{request.url.query}" if request.url.query else ""),
                 response.status_code, response.headers.get("content-length", 0),
                 profile.fmt_version(version), time.perf_counter() - started)
        ctx_mod.reset(token)
        return response

    return run


def _call(handler: Handler, req: ApiRequest) -> ApiResponse:
    token = req.ctx.activate()  # worker threads don't inherit the event loop's context
    try:
        return handler(req)
    finally:
        ctx_mod.reset(token)
