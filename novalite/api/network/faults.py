"""Neutron's error body: {"NeutronError": {"type": <exception class>, "message", "detail"}},
which openstacksdk and the CLI show the message of."""

from __future__ import annotations

from starlette.responses import JSONResponse, Response

from novalite.api.faults import HTTPFault

# for errors raised without a Neutron class name (routing, bodies, policy)
TYPES = {400: "HTTPBadRequest", 401: "HTTPUnauthorized", 403: "HTTPForbidden",
         404: "HTTPNotFound", 405: "HTTPMethodNotAllowed", 409: "HTTPConflict",
         412: "HTTPPreconditionFailed", 415: "HTTPUnsupportedMediaType",
         500: "HTTPInternalServerError", 501: "HTTPNotImplemented",
         503: "HTTPServiceUnavailable"}


def body(code: int, message: str, error_type: str | None = None) -> dict:
    return {"NeutronError": {"type": error_type or TYPES.get(code, "HTTPError"),
                             "message": message, "detail": ""}}


def fault(error: HTTPFault, request_id: str) -> Response:
    return JSONResponse(body(error.code, error.message, error.error_code),
                        status_code=error.code)


def bad_request(message: str) -> HTTPFault:
    return HTTPFault(400, message)
