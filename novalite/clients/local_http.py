"""Calls to the all-in-one's own HTTP server without keystoneauth and requests.

Each call through them cost the caller 0.7 ms of CPU on a 2-core machine, about as much
as the server's answer; a compute reports a new host to placement in three calls, so a
10,000-host start spent 20 s in them. Here a call is one request on a kept-alive
connection of novalite.clients.http1 (0.1 ms), or, given the app that serves the
endpoint in this process, a call of it in the caller's thread (clients.in_process). Only
for a group the all-in-one aimed at itself (no auth options, no endpoint_override: plain
HTTP on loopback, no proxy, no certificates), and with what keystoneauth would still
have done there: the token of the all-in-one's credentials (cached by its plugin,
fetched again once on a 401), the microversion, global request id and User-Agent
headers, and the group's connect and status code retries with the same back-off. The
answer has the attributes of a requests response that the clients use. Neutron's and
Cinder's clients call through it too, most often with the user's token in their own
headers (as Nova calls them), which it then sends instead of the service's.
"""

from __future__ import annotations

import logging
import time
import urllib.parse
from typing import Any

import orjson
from keystoneauth1 import exceptions as ks_exc
from keystoneauth1 import session as ks_session

from novalite import __version__
from novalite.clients import http1, in_process

LOG = logging.getLogger(__name__)
FIRST_DELAY, MAX_DELAY = 0.5, 60.0  # keystoneauth's back-off between retries


class Body:
    """The response's undecoded body, read whole already (requests' `raw`)."""

    def __init__(self, content: bytes) -> None:
        self._content = content

    def read(self, amt: int | None = None, decode_content: bool = False) -> bytes:
        content, self._content = self._content, b""
        return content


class Response:
    def __init__(self, status: int, headers: Any, content: bytes) -> None:
        self.status_code = status
        self.headers = headers
        self.content = content
        self.raw = Body(content)

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", "replace")

    def json(self) -> Any:
        return orjson.loads(self.content)


class Delays:
    """The waits before successive retries: fixed, or doubling from 0.5 s up to 60 s."""

    def __init__(self, fixed: float | None) -> None:
        self._fixed = fixed
        self._next = fixed or FIRST_DELAY

    def __next__(self) -> float:
        delay = self._next
        if not self._fixed:
            self._next = min(delay * 2, MAX_DELAY)
        return delay


class LocalClient:
    """What the clients call as `adapter.request(url, method, ...)`; one per group and
    process, safe to share between threads (its pool keeps the connections)."""

    def __init__(self, endpoint: str, auth: Any | None, user_agent: str,
                 options: Any, app: Any = None) -> None:
        """`options`: the group's configuration (service_type, timeout, retries); `app`:
        the ASGI app serving `endpoint` in this process, called without a socket."""
        parts = urllib.parse.urlsplit(endpoint)
        self._prefix = parts.path.rstrip("/")
        host, port = parts.hostname or "127.0.0.1", parts.port or 80
        self._pool: http1.Pool | in_process.AppPool = (
            in_process.AppPool(app, host, port) if app is not None
            else http1.Pool(host, port, timeout=options.timeout))
        self._auth = auth
        self._auth_session = ks_session.Session(auth=auth) if auth is not None else None
        self._service_type = options.service_type
        self._user_agent = f"{user_agent}/{__version__}"
        self._options = options

    def request(self, url: str, method: str, *, microversion: str | None = None,
                json: Any = None, global_request_id: str | None = None,
                raise_exc: bool = False, stream: bool = False,
                headers: dict[str, str] | None = None, authenticated: bool = True,
                connect_retries: int | None = None) -> Response:
        """As keystoneauth's Adapter.request with raise_exc=False (the only way the
        clients call it); `stream` changes nothing, the body is read in one read.
        `authenticated=False`: the caller's own `headers` carry its token (a user's,
        as Nova calls Neutron and Cinder with); `connect_retries` overrides the group's."""
        if raise_exc:
            raise ValueError("LocalClient answers errors as responses: raise_exc=False")
        sent = {"Accept": "application/json", "User-Agent": self._user_agent}
        if microversion:
            sent["OpenStack-API-Version"] = f"{self._service_type} {microversion}"
        if global_request_id:
            sent["X-OpenStack-Request-ID"] = global_request_id
        sent.update(headers or {})
        body = None
        if json is not None:
            body = orjson.dumps(json)
            sent["Content-Type"] = "application/json"
        auth = self._auth if authenticated else None
        response = self._send(method, self._prefix + url, body, sent, auth, connect_retries)
        if response.status_code == 401 and auth is not None and \
                auth.invalidate():  # the token expired or was revoked: a new one
            response = self._send(method, self._prefix + url, body, sent, auth,
                                  connect_retries)
        return response

    def _send(self, method: str, path: str, body: bytes | None, headers: dict[str, str],
              auth: Any | None, connect_retries: int | None) -> Response:
        if auth is not None:
            headers.update(auth.get_headers(self._auth_session) or {})
        opts = self._options
        if connect_retries is None:
            connect_retries = opts.connect_retries or 0
        status_retries = opts.status_code_retries or 0
        connect_delays, status_delays = (Delays(opts.connect_retry_delay),
                                         Delays(opts.status_code_retry_delay))
        retried_codes = set(opts.retriable_status_codes or (503,))
        while True:
            try:
                answer = self._pool.request(method, path, body, headers)
            except http1.ConnectionFailed as exc:
                if connect_retries <= 0:
                    raise ks_exc.ConnectFailure(
                        f"Unable to establish connection to {path}: {exc}") from exc
                connect_retries -= 1
                delay = next(connect_delays)
                LOG.warning("Failure: %s. Retrying in %.1fs. %s retries left", exc, delay,
                            connect_retries + 1)
                time.sleep(delay)
                continue
            if answer.status in retried_codes and status_retries > 0:
                status_retries -= 1
                retry_after = answer.headers.get("Retry-After", "")
                delay = int(retry_after) if retry_after.isdigit() else next(status_delays)
                LOG.warning("Retriable status code %s. Retrying in %.1fs. %s retries left",
                            answer.status, delay, status_retries + 1)
                time.sleep(delay)
                continue
            return Response(answer.status, answer.headers, answer.body)
