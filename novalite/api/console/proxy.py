"""The console proxy (Nova's nova-novncproxy and nova-serialproxy, in the API's HTTP
server): a websocket whose URL carries a console token, relayed to the guest's console
on its compute host.

A connection is refused before the websocket opens (a 403, nothing relayed) when its
token is unknown, expired, of another console type, or its guest's console is no longer
where the token says; and, as Nova's proxy does, when a browser's Origin names another
host than the one the proxy was reached on (or [console] allowed_origins), or another
scheme. A console listener that serves many guests is first told which one with
"CONNECT <internal_access_path>", as Nova's proxy tells it."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import urllib.parse
from collections.abc import Awaitable, Callable

from starlette.concurrency import run_in_threadpool
from starlette.routing import BaseRoute, Mount, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from novalite import exception
from novalite.compute.console_steps import NOVNC, SERIAL
from novalite.compute.consoles_api import ConsoleAPI
from novalite.conf import CONF
from novalite.db.api.console_auth_tokens import ConsoleAuth
from novalite.rpc.errors import MessagingError

LOG = logging.getLogger(__name__)

POLICY_VIOLATION = 1008  # the websocket close code that refuses the handshake (403)
CHUNK = 65536


class Refused(Exception):
    """Why a console connection is not relayed (logged; the client only sees a 403)."""


def _token(websocket: WebSocket) -> str:
    """From the query (noVNC puts it there through its `path`), else a `token` cookie
    (older noVNC)."""
    return websocket.query_params.get("token") or websocket.cookies.get("token", "")


def check_origin(origin: str | None, host: str | None, forwarded_proto: str | None,
                 secure: bool) -> None:
    """A browser's Origin must name this proxy's host (or an allowed one) and scheme,
    so that another site's page cannot open a console with a token it obtained."""
    if origin is None:
        return
    parsed = urllib.parse.urlparse(origin)
    scheme = forwarded_proto or parsed.scheme
    if not parsed.hostname or not scheme:
        raise Refused("Origin header not valid.")
    expected = [*CONF.console.allowed_origins,
                urllib.parse.urlparse(f"//{host or ''}").hostname]
    if parsed.hostname not in expected:
        raise Refused("Origin header does not match this host.")
    if scheme not in (("https", "wss") if secure else ("http", "ws")):
        raise Refused("Origin header protocol does not match this host.")


async def _open(auth: ConsoleAuth) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    reader, writer = await asyncio.open_connection(auth.host, auth.port)
    if auth.internal_access_path:
        writer.write(f"CONNECT {auth.internal_access_path} HTTP/1.1\r\n\r\n".encode())
        await writer.drain()
        head = await reader.readuntil(b"\r\n\r\n")
        if b" 200" not in head.split(b"\r\n", 1)[0]:
            writer.close()
            raise Refused(f"The console at {auth.host}:{auth.port} refused "
                          f"{auth.internal_access_path}")
    return reader, writer


async def _to_console(websocket: WebSocket, writer: asyncio.StreamWriter) -> None:
    while True:
        message = await websocket.receive()
        if message["type"] == "websocket.disconnect":
            return
        data = message.get("bytes") or (message.get("text") or "").encode()
        writer.write(data)
        await writer.drain()


async def _to_client(websocket: WebSocket, reader: asyncio.StreamReader) -> None:
    while data := await reader.read(CHUNK):
        await websocket.send_bytes(data)


async def _relay(websocket: WebSocket, auth: ConsoleAuth) -> None:
    reader, writer = await _open(auth)
    subprotocols = websocket.scope.get("subprotocols") or []
    await websocket.accept(subprotocol="binary" if "binary" in subprotocols else None)
    tasks = [asyncio.ensure_future(_to_console(websocket, writer)),
             asyncio.ensure_future(_to_client(websocket, reader))]
    timeout = auth.expires - time.time() if CONF.consoleauth.enforce_session_timeout \
        else None
    try:
        await asyncio.wait(tasks, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()
        writer.close()
        with contextlib.suppress(Exception):
            await websocket.close()


def _endpoint(console_types: tuple[str, ...]) -> Callable[[WebSocket], Awaitable[None]]:
    async def serve(websocket: WebSocket) -> None:
        try:
            check_origin(websocket.headers.get("origin"), websocket.headers.get("host"),
                         websocket.headers.get("x-forwarded-proto"),
                         websocket.url.scheme == "wss")
            auth = await run_in_threadpool(ConsoleAPI().connect_info, _token(websocket),
                                           console_types)
            if auth is None:
                raise Refused("The console token is not valid.")
            LOG.info("Console %s of %s: connecting to %s:%s", auth.console_type,
                     auth.instance_uuid, auth.host, auth.port)
            await _relay(websocket, auth)
        except (Refused, OSError, asyncio.IncompleteReadError, MessagingError,
                exception.NovaliteException) as exc:
            # the console or its compute gone or unreachable: refused, never a 500
            LOG.warning("Console connection refused: %s", exc)
            await websocket.close(code=POLICY_VIOLATION)
        except WebSocketDisconnect:
            pass

    return serve


def routes() -> list[BaseRoute]:
    """The noVNC websocket beside noVNC's own pages ([DEFAULT] web, if installed), and
    the serial console websocket."""
    novnc = _endpoint((NOVNC,))
    serial = _endpoint((SERIAL,))
    return [
        WebSocketRoute("/novnc/websockify", novnc),
        Mount("/novnc", app=StaticFiles(directory=CONF.web, check_dir=False)),
        WebSocketRoute("/serial/", serial),
        WebSocketRoute("/serial", serial),
    ]
