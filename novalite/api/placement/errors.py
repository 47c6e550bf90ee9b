"""Placement's error body: {"errors": [{"status", "title", "detail", "code", "request_id"}]}.

`detail` reads as upstream's (the status's standard explanation, then the reason);
`code` appears from 1.23, `placement.undefined_code` when nothing more precise applies.
"""

from __future__ import annotations

from http import HTTPStatus

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from novalite.api.faults import HTTPFault
from novalite.api.placement import microversions
from novalite.context import generate_request_id
from novalite.placement.errors import DEFAULT

EXPLANATIONS = {
    400: "The server could not comply with the request since it is either malformed or "
         "otherwise incorrect.",
    401: "This server could not verify that you are authorized to access the document you "
         "requested.",
    403: "Access was denied to this resource.",
    404: "The resource could not be found.",
    405: "The method is not allowed for this resource.",
    406: "The resource could not be generated that was acceptable to your browser.",
    409: "There was a conflict when trying to complete your request.",
    415: "The request media type is not supported by this server.",
    500: "The server has either erred or is incapable of performing the requested "
         "operation.",
}


def error(status: int, detail: str, code: str | None = None) -> HTTPFault:
    """The exception a handler raises to answer a placement error."""
    return HTTPFault(status, detail, code)


def fault_response(fault: HTTPFault, request_id: str,
                   headers: dict[str, str] | None = None) -> Response:
    explanation = EXPLANATIONS.get(fault.code, "")
    body = {"status": fault.code, "title": HTTPStatus(fault.code).phrase,
            "detail": f"{explanation}\n\n {fault.message}  ", "request_id": request_id}
    if microversions.current.get() >= (1, 23):
        body["code"] = fault.error_code or DEFAULT
    return JSONResponse({"errors": [body]}, status_code=fault.code, headers=headers)


async def http_error(request: Request, exc: HTTPException) -> Response:
    """Unknown URLs (404) and known URLs with the wrong method (405, with Allow)."""
    try:
        version = microversions.negotiate(request.headers)
    except HTTPFault:
        version = microversions.MIN_VERSION
    detail = ("The method specified is not allowed for this resource."
              if exc.status_code == 405 else "")
    headers = {**(exc.headers or {}), **microversions.response_headers(version)}
    if "Allow" in headers:
        headers["Allow"] = ", ".join(m for m in headers["Allow"].split(", ") if m != "HEAD")
    request_id = generate_request_id()
    headers["x-openstack-request-id"] = request_id
    return fault_response(HTTPFault(exc.status_code, detail), request_id, headers)
