"""The wrapper every handler runs in: ids, auth, microversion, body, logging, faults."""

from __future__ import annotations

import contextvars
import dataclasses
import functools
import json
import logging
import re
import time
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from typing import Any

import orjson
from anyio import from_thread
from starlette.concurrency import iterate_in_threadpool, run_in_threadpool
from starlette.datastructures import QueryParams
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from novalite import context as ctx_mod
from novalite import exception
from novalite.api import auth, faults
from novalite.api.profile import ApiProfile
from novalite.api.worker_threads import WorkerThreads
from novalite.clients import adapters, in_process
from novalite.conf import CONF

LOG = logging.getLogger("novalite.api")

# Deeper than any API's schema nests (a placement allocation body: 5 levels).
_MAX_DEPTH = 32
_REQUEST_ID = re.compile(r"^req-[a-f0-9]{8}(-[a-f0-9]{4}){3}-[a-f0-9]{12}$")


# The threads handlers run in, as many as anyio's default limit, which Starlette's
# run_in_threadpool used for every request: anyio's hop was 7% of the all-in-one's CPU
# in the volume benchmark, the largest part of its event loop's work. Each call runs in
# a copy of the caller's context, as anyio's did.
_WORKERS = WorkerThreads(40, "api")
# What a request without a query string is handed (immutable, so shared): most requests
# have none, and parsing the empty string made a new one each time.
_NO_QUERY = QueryParams()


@dataclasses.dataclass
class ApiRequest:
    ctx: ctx_mod.RequestContext
    version: tuple[int, int]
    params: dict[str, str]
    query: Any  # starlette QueryParams (multi-dict)
    body: Any  # parsed JSON, or an iterator of raw chunks for a `streams_body` handler
    base_url: str  # e.g. http://host:port/compute
    # by lower-case name (identity reads x-subject-token)
    headers: dict[str, str] = dataclasses.field(default_factory=dict)

    def at_least(self, version: str) -> bool:
        major, minor = version.split(".")
        return self.version >= (int(major), int(minor))


@dataclasses.dataclass
class ApiResponse:
    status: int
    body: Any = None
    headers: dict[str, str] = dataclasses.field(default_factory=dict)
    # bytes to send as they come (e.g. an image download) instead of a JSON body
    stream: Iterator[bytes] | None = None
    media_type: str | None = None


Handler = Callable[[ApiRequest], ApiResponse]


def streams_body(handler: Handler) -> Handler:
    """Mark a handler that reads its request body as raw chunks (an upload) rather than
    JSON, so the body is never held whole in memory."""
    handler.streams_body = True  # type: ignore[attr-defined]
    return handler


def _chunks(stream: AsyncIterator[bytes]) -> Iterator[bytes]:
    """The request body for the handler's worker thread, pulled from the event loop."""

    async def pull() -> bytes | None:
        try:
            return await stream.__anext__()
        except StopAsyncIteration:
            return None

    while (chunk := from_thread.run(pull)) is not None:
        if chunk:
            yield chunk


def _rendered(result: ApiResponse) -> ApiResponse:
    """The body as JSON, written in the worker thread rather than on the event loop, and
    by orjson: a 1,000-server list took the standard library 20-40 ms, a sixth of its
    GET. A body of bytes is JSON the handler rendered itself."""
    if result.stream is None and result.body is not None and not isinstance(result.body, bytes):
        result.body = orjson.dumps(result.body, option=orjson.OPT_NON_STR_KEYS)
    return result


def _response(result: ApiResponse, headers: dict[str, str], inline: bool) -> Response:
    """A rendered body, or a stream sent as it comes (whole to an in-process caller,
    which reads it whole), with `headers`: given at once, as each header set on a made
    response scans and encodes its list again."""
    if result.stream is not None and inline:
        return Response(b"".join(result.stream), status_code=result.status, headers=headers,
                        media_type=result.media_type)
    if result.stream is not None:
        return StreamingResponse(iterate_in_threadpool(result.stream), headers=headers,
                                 status_code=result.status, media_type=result.media_type)
    if result.body is None:
        return Response(status_code=result.status, headers=headers)
    return Response(result.body, status_code=result.status, headers=headers,
                    media_type="application/json")


_DEFAULT_PORTS = {"http": 80, "https": 443}


def _base_url(request: Request, headers: dict[str, str], mount: str) -> str:
    """The API's URL as the client reached it: the Host header, else the server's
    address, as Starlette's `request.url` reads them, without parsing the whole URL
    (2 % of a volume cycle's CPU)."""
    if CONF.api.public_endpoint:
        return CONF.api.public_endpoint.rstrip("/") + mount
    scope = request.scope
    scheme = scope.get("scheme", "http")
    host = headers.get("host")
    if host is None:
        address, port = scope.get("server") or ("", None)
        host = address if port == _DEFAULT_PORTS.get(scheme) else f"{address}:{port}"
    return f"{scheme}://{host}{mount}"


def _headers(scope: Mapping[str, Any]) -> dict[str, str]:
    """The request's headers by their lower-case names (as ASGI gives them), the first
    of repeated ones, read once: Starlette's Headers looks each name up by encoding it
    and scanning every header, and a request asks for a dozen (auth, microversion,
    request id, body length, user agent), most of them absent."""
    return {key.decode("latin-1"): value.decode("latin-1")
            for key, value in reversed(scope["headers"])}


def _logged_path(request: Request) -> str:
    query = request.scope.get("query_string", b"")
    return request.scope["path"] + (f"?{query.decode('latin-1')}" if query else "")


def _parse_body(raw: bytes) -> Any:
    """JSON, refused with a 400 if it is not, if it nests deeper than any API's schema does
    (a deep document would exhaust the stack of whatever walks it next), or if a string
    holds a lone UTF-16 surrogate (no database can store it)."""
    if not raw:
        return None
    try:
        body = json.loads(raw)
    except (ValueError, RecursionError):
        raise faults.HTTPFault(400, "Malformed request body") from None
    _check_document(body)
    return body


def _check_document(body: Any) -> None:
    pending = [(body, 1)]
    while pending:
        value, depth = pending.pop()
        if isinstance(value, str):
            try:
                value.encode()
            except UnicodeEncodeError:
                raise faults.HTTPFault(400, "Malformed request body: a string is not valid "
                                            "Unicode") from None
            continue
        children = (value.values() if isinstance(value, dict)
                    else value if isinstance(value, list) else ())
        if children and depth >= _MAX_DEPTH:
            raise faults.HTTPFault(400, f"Malformed request body: nested deeper than "
                                        f"{_MAX_DEPTH} levels")
        pending.extend((child, depth + 1) for child in children)
        if isinstance(value, dict):
            pending.extend((key, depth) for key in value)


async def _read_body(request: Request, headers: dict[str, str]) -> bytes:
    """The body, refused with a 413 beyond [oslo_middleware] max_request_body_size (as
    oslo.middleware's sizelimit does for Nova and Keystone) before more is read."""
    declared = headers.get("content-length", "")
    if declared in ("", "0") and "transfer-encoding" not in headers:
        return b""  # a request with neither header has no body (RFC 9112, 6.3)
    limit = CONF.oslo_middleware.max_request_body_size
    if limit and declared.isdigit() and int(declared) > limit:
        raise _too_large(limit)
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if limit and size > limit:
            raise _too_large(limit)
        chunks.append(chunk)
    return b"".join(chunks)


def _too_large(limit: int) -> faults.HTTPFault:
    return faults.HTTPFault(413, f"Request is too large: the limit is {limit} bytes.")


def _error(exc: Exception, request_id: str) -> faults.HTTPFault:
    if isinstance(exc, faults.HTTPFault):
        return exc
    if isinstance(exc, exception.NovaliteException) and exc.safe:
        return faults.HTTPFault(exc.code, exc.format_message(),
                                getattr(exc, "error_code", None), getattr(exc, "headers", None))
    LOG.exception("Unexpected error handling the request")
    return faults.HTTPFault(500, faults.UNEXPECTED.format(request_id=request_id))


@dataclasses.dataclass
class _Progress:
    """What the worker thread learnt before it finished or failed: the caller's context
    and the negotiated version, for the response headers and the access log."""

    ctx: ctx_mod.RequestContext
    version: tuple[int, int]
    negotiated: bool = False


def _serve(handler: Handler, profile: ApiProfile, authenticated: bool, request: Request,
           headers: dict[str, str], raw: bytes | None, progress: _Progress) -> ApiResponse:
    """Authentication (which reads the database) and the handler in one worker thread:
    one hop off the event loop per request rather than two."""
    token = progress.ctx.activate()  # worker threads don't inherit the loop's context
    try:
        if authenticated:
            progress.ctx = auth.authenticate(headers, progress.ctx)
            progress.ctx.activate()
        progress.version = profile.negotiate(headers)
        progress.negotiated = True
        body = (_chunks(request.stream()) if raw is None
                else iter((raw,) if raw else ()) if getattr(handler, "streams_body", False)
                else _parse_body(raw))
        query = request.query_params if request.scope["query_string"] else _NO_QUERY
        return _rendered(handler(ApiRequest(
            progress.ctx, progress.version, dict(request.path_params), query, body,
            _base_url(request, headers, profile.mount), headers)))
    finally:
        ctx_mod.reset(token)


async def _in_thread(handler: Handler, profile: ApiProfile, authenticated: bool,
                     request: Request, headers: dict[str, str],
                     progress: _Progress) -> ApiResponse:
    try:
        streams = getattr(handler, "streams_body", False)
        if request.scope.get(in_process.INLINE):
            # The calling thread serves it (novalite.clients.in_process), the body
            # read whole: a service's upload is not held to a JSON body's size limit.
            raw = b"".join([chunk async for chunk in request.stream()]) if streams \
                else await _read_body(request, headers)
            return _serve(handler, profile, authenticated, request, headers, raw, progress)
        if streams:
            # its body is pulled from the event loop through anyio: in an anyio worker
            return await run_in_threadpool(_serve, handler, profile, authenticated,
                                           request, headers, None, progress)
        raw = await _read_body(request, headers)
        call = functools.partial(contextvars.copy_context().run, _serve, handler, profile,
                                 authenticated, request, headers, raw, progress)
        return await _WORKERS.run(call)
    finally:
        # What the thread set in its copy of the context is gone: the caller's context
        # (its request id and user for the access log) is set here again.
        progress.ctx.activate()


def _stamps(profile: ApiProfile, progress: _Progress, request_id: str) -> dict[str, str]:
    """The headers every answer carries: the version it was answered at, and the ids."""
    return {**profile.version_headers(progress.version), "x-openstack-request-id": request_id,
            "x-compute-request-id": request_id}


def _access_level(headers: dict[str, str]) -> int:
    """INFO for a user's request, DEBUG for one of novalite's own services (a compute's
    placement reports)."""
    agent = headers.get("user-agent", "")
    return logging.DEBUG if agent.startswith(adapters.CLIENT_NAME + "/") else logging.INFO


def endpoint(handler: Handler, profile: ApiProfile, authenticated: bool = True) -> Callable:
    """Turn a plain handler into a Starlette endpoint with the common behaviour."""
    default_version = profile.negotiate({})  # a request's until its own is negotiated

    async def run(request: Request) -> Response:
        started = time.perf_counter()
        request_id = ctx_mod.generate_request_id()
        ctx = ctx_mod.RequestContext(request_id=request_id)
        headers = _headers(request.scope)
        incoming = headers.get("x-openstack-request-id", "")
        ctx.global_request_id = incoming if _REQUEST_ID.match(incoming) else None
        token = ctx.activate()
        progress = _Progress(ctx, default_version)
        try:
            result = await _in_thread(handler, profile, authenticated, request, headers,
                                      progress)
        except Exception as exc:
            if progress.negotiated:  # an error body may depend on it (placement's code)
                profile.negotiate(headers)
            error = _error(exc, request_id)
            response = profile.fault(error, request_id)
            response.headers.update({**error.headers,
                                     **_stamps(profile, progress, request_id)})
            if error.code == 401:  # where to get a token, as keystonemiddleware says
                response.headers["WWW-Authenticate"] = (
                    f'Keystone uri="{_base_url(request, headers, "/identity")}"')
        else:
            response = _response(result, {**result.headers,
                                          **_stamps(profile, progress, request_id)},
                                 bool(request.scope.get(in_process.INLINE)))
        LOG.log(_access_level(headers), '%s "%s %s" status: %s len: %s microversion: %s '
                'time: %.4f',
                 request.client.host if request.client else "-", request.method,
                 _logged_path(request),
                 response.status_code, response.headers.get("content-length", 0),
                 profile.fmt_version(progress.version), time.perf_counter() - started)
        ctx_mod.reset(token)
        return response

    return run
