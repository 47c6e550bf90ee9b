"""Nova's fault body: {"<name>": {"code": N, "message": "..."}}, with the name by status."""

from __future__ import annotations

from starlette.responses import JSONResponse

FAULT_NAMES = {
    400: "badRequest",
    401: "unauthorized",
    403: "forbidden",
    404: "itemNotFound",
    405: "badMethod",
    409: "conflictingRequest",
    413: "overLimit",
    415: "badMediaType",
    429: "overLimit",
    501: "notImplemented",
    503: "serviceUnavailable",
}

UNEXPECTED = ("Unexpected API Error. Please report this at the novalite issue tracker and "
              "attach the novalite-api log (request id {request_id}) if possible.")


class HTTPFault(Exception):
    """Raised by handlers to answer with a fault. `error_code` is a stable, machine-readable
    name for APIs that have them (placement's `placement.concurrent_update`)."""

    def __init__(self, code: int, message: str, error_code: str | None = None,
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.error_code = error_code
        self.headers = headers or {}  # e.g. a 503's Retry-After


def fault_body(code: int, message: str) -> dict:
    return {FAULT_NAMES.get(code, "computeFault"): {"code": code, "message": message}}


def fault_response(code: int, message: str, headers: dict | None = None) -> JSONResponse:
    return JSONResponse(fault_body(code, message), status_code=code, headers=headers)
