"""What the request wrapper reads of the request's URL and headers, read as Starlette's
own URL and Headers read them."""

from __future__ import annotations

import asyncio

import pytest
from starlette.requests import Request

from novalite.api import faults
from novalite.api import request as api_request


def _request(scheme: str, server: tuple[str, int] | None, host: bytes | None,
             path: str = "/compute/v2.1/servers", query: bytes = b"") -> Request:
    headers = [(b"accept", b"*/*")] + ([(b"host", host)] if host is not None else [])
    return Request({"type": "http", "scheme": scheme, "server": server, "path": path,
                    "query_string": query, "headers": headers, "method": "GET"})


@pytest.mark.parametrize("scheme, server, host", [
    ("http", ("10.0.0.1", 8774), b"cloud.example:8774"),
    ("http", ("10.0.0.1", 8774), b"cloud.example"),
    ("http", ("10.0.0.1", 8774), None),
    ("http", ("10.0.0.1", 80), None),
    ("https", ("10.0.0.1", 443), None),
    ("https", ("10.0.0.1", 80), None),
    ("http", ("::1", 8774), b"[::1]:8774"),
])
def test_the_base_url_is_the_one_starlette_reads(scheme, server, host):
    request = _request(scheme, server, host)
    expected = f"{request.url.scheme}://{request.url.netloc}/compute"
    assert api_request._base_url(request, api_request._headers(request.scope),
                                 "/compute") == expected


def test_a_public_endpoint_overrides_what_the_client_reached(conf):
    conf.set_override("public_endpoint", "https://api.example/", group="api")
    request = _request("http", ("10.0.0.1", 80), b"x")
    assert api_request._base_url(request, api_request._headers(request.scope),
                                 "/compute") == "https://api.example/compute"


@pytest.mark.parametrize("query", [b"", b"limit=1&marker=a%20b"])
def test_the_logged_path_is_the_urls_path_and_query(query):
    request = _request("http", ("10.0.0.1", 80), b"x", "/volume/v3/volumes/detail", query)
    expected = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    assert api_request._logged_path(request) == expected


def test_the_headers_are_the_ones_starlette_reads():
    request = Request({"type": "http", "path": "/", "headers": [
        (b"x-auth-token", b"first"), (b"x-auth-token", b"second"),
        (b"user-agent", b"caf\xe9")]})
    headers = api_request._headers(request.scope)
    for name in ("x-auth-token", "user-agent", "x-roles"):
        assert headers.get(name) == request.headers.get(name)


def _posted(headers: list[tuple[bytes, bytes]], chunks: list[bytes]) -> tuple[bytes, int]:
    """What _read_body reads of a request sending `chunks`, and how many it asked for."""
    sent = [{"type": "http.request", "body": chunk, "more_body": i < len(chunks) - 1}
            for i, chunk in enumerate(chunks)]
    asked = 0

    async def receive() -> dict:
        nonlocal asked
        asked += 1
        return sent.pop(0)

    request = Request({"type": "http", "path": "/", "method": "POST", "headers": headers},
                      receive)
    body = asyncio.run(api_request._read_body(request, api_request._headers(request.scope)))
    return body, asked


@pytest.mark.parametrize("headers, chunks, expected", [
    ([(b"content-length", b"7")], [b'{"a":', b"1}"], b'{"a":1}'),
    ([(b"transfer-encoding", b"chunked")], [b"[1,", b"2]", b""], b"[1,2]"),
])
def test_a_body_is_read_whole(headers, chunks, expected):
    assert _posted(headers, chunks)[0] == expected


@pytest.mark.parametrize("headers", [[], [(b"content-length", b"0")]])
def test_a_request_without_a_body_is_not_waited_on(headers):
    """Neither a length nor a transfer coding: no body (RFC 9112, 6.3), nothing to receive."""
    assert _posted(headers, []) == (b"", 0)


def test_a_body_beyond_the_limit_is_refused(conf):
    conf.set_override("max_request_body_size", 4, group="oslo_middleware")
    with pytest.raises(faults.HTTPFault) as refused:
        _posted([(b"transfer-encoding", b"chunked")], [b"[1,", b"2]", b""])
    assert refused.value.code == 413
