"""Glance's error responses. Glance raises webob HTTP exceptions and lets webob render
them; JSON-speaking clients get webob's JSON form, which openstacksdk and glanceclient
read the `message` of: {"message": "<text><br /><br />\\n\\n", "code": "404 Not Found",
"title": "Not Found"}."""

from __future__ import annotations

from http import HTTPStatus

from starlette.responses import JSONResponse, Response

from novalite.api.faults import HTTPFault


def _title(code: int) -> str:
    try:
        return HTTPStatus(code).phrase
    except ValueError:
        return "Error"


def body(code: int, message: str) -> dict:
    title = _title(code)
    return {"message": f"{message}<br /><br />\n\n", "code": f"{code} {title}",
            "title": title}


def fault(error: HTTPFault, request_id: str) -> Response:
    if error.code == 204:  # Glance's "no data" answer is an empty success
        return Response(status_code=204)
    return JSONResponse(body(error.code, error.message), status_code=error.code)
