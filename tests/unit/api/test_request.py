"""What the request wrapper reads of the request's URL and headers, read as Starlette's
own URL and Headers read them."""

from __future__ import annotations

import pytest
from starlette.requests import Request

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
