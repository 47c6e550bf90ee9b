"""Keystone's error body: {"error": {"code": N, "message": "...", "title": "..."}}."""

from __future__ import annotations

from http import HTTPStatus

from starlette.responses import JSONResponse

from novalite.api.faults import HTTPFault


def fault_response(code: int, message: str, headers: dict | None = None) -> JSONResponse:
    try:
        title = HTTPStatus(code).phrase
    except ValueError:
        title = "Error"
    return JSONResponse({"error": {"code": code, "message": message, "title": title}},
                        status_code=code, headers=headers)


def render(error: HTTPFault, request_id: str) -> JSONResponse:
    return fault_response(error.code, error.message)
