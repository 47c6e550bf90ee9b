"""Each running router's metadata proxy, as Neutron's (haproxy in the qrouter namespace
behind a REDIRECT of 169.254.169.254:80, and the metadata agent): a socket listening on
port 9697 inside the router's namespace, served by this process. A request is
identified by its source address on one of the router's networks: the compute port
holding it names the instance and project, which go to the metadata API as
X-Instance-ID and X-Tenant-ID with the HMAC signature the API checks
([DEFAULT] metadata_proxy_shared_secret), and the answer goes back to the guest."""

from __future__ import annotations

import http.server
import logging
import socket
import threading
import urllib.error
import urllib.request
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from novalite import instance_metadata
from novalite.conf import CONF
from novalite.datapath import names, netns
from novalite.datapath.routers import METADATA_PORT
from novalite.db.models import network as m
from novalite.network import transaction
from novalite.network.routers import INTERFACE

LOG = logging.getLogger(__name__)
_local_target: str | None = None
TIMEOUT = 10.0
MAX_BODY = 64 * 1024  # far above anything the metadata API takes


def use_local(url: str) -> None:
    """The all-in-one's own metadata API (else [DEFAULT] nova_metadata_*)."""
    global _local_target
    _local_target = url


def target() -> str:
    return _local_target or (f"{CONF.nova_metadata_protocol}://{CONF.nova_metadata_host}:"
                             f"{CONF.nova_metadata_port}/metadata")


def _owner(s: Session, router_id: str, address: str) -> tuple[str, str] | None:
    """(instance, project) of the compute port holding `address` behind the router."""
    networks = select(m.Port.network_id).where(m.Port.device_id == router_id,
                                               m.Port.device_owner == INTERFACE)
    found = s.execute(select(m.Port.device_id, m.Port.project_id)
                      .join(m.IPAllocation, m.IPAllocation.port_id == m.Port.id)
                      .where(m.IPAllocation.ip_address == address,
                             m.Port.network_id.in_(networks),
                             m.Port.device_owner.like("compute:%"))).first()
    return (found[0], found[1]) if found else None


class _Handler(http.server.BaseHTTPRequestHandler):
    server: _ProxyServer

    def do_GET(self) -> None:  # noqa: N802 (the stdlib's name)
        self._forward(None)

    def do_POST(self) -> None:  # noqa: N802
        """What a guest posts (its password), passed on as Neutron's proxy does; the API
        judges it, up to what a body here may hold."""
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        if not 0 <= length <= MAX_BODY:
            self._answer(400, b"Invalid Content-Length", "text/plain")
            return
        self._forward(self.rfile.read(length))

    def _forward(self, data: bytes | None) -> None:
        address = self.client_address[0]
        owner = transaction.read(lambda s: _owner(s, self.server.router_id, address))
        if owner is None:
            self._answer(404, b"No instance at this address", "text/plain")
            return
        instance_id, project_id = owner
        request = urllib.request.Request(target() + self.path, data=data, headers={
            "X-Instance-ID": instance_id, "X-Tenant-ID": project_id,
            "X-Instance-ID-Signature": instance_metadata.sign(
                instance_id, CONF.metadata_proxy_shared_secret),
            "X-Forwarded-For": address})
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
                self._answer(response.status, response.read(),
                             response.headers.get("Content-Type", "text/plain"))
        except urllib.error.HTTPError as exc:  # the API's own refusal, passed on
            self._answer(exc.code, exc.read(), exc.headers.get("Content-Type", "text/plain"))
        except OSError as exc:
            LOG.warning("Metadata API unreachable for %s: %s", instance_id, exc)
            self._answer(502, b"The metadata service is unavailable", "text/plain")

    def _answer(self, status: int, body: bytes, media_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", media_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, fmt: str, *args: Any) -> None:
        LOG.debug("metadata proxy %s: " + fmt, self.server.router_id, *args)


class _ProxyServer(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, router_id: str, listening: socket.socket) -> None:
        super().__init__(("0.0.0.0", METADATA_PORT), _Handler, bind_and_activate=False)
        self.socket = listening
        self.router_id = router_id


def _listen() -> socket.socket:
    listening = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listening.bind(("0.0.0.0", METADATA_PORT))
    listening.listen(64)
    return listening


class MetadataProxies:
    def __init__(self) -> None:
        self._servers: dict[str, _ProxyServer] = {}
        self._lock = threading.Lock()

    def ensure(self, router_id: str) -> None:
        with self._lock:
            if router_id in self._servers:
                return
            listening = netns.call_in(names.router_namespace(router_id), _listen)
            server = self._servers[router_id] = _ProxyServer(router_id, listening)
        threading.Thread(target=server.serve_forever, daemon=True,
                         name=f"metadata-proxy-{router_id[:8]}").start()

    def remove(self, router_id: str) -> None:
        with self._lock:
            server = self._servers.pop(router_id, None)
        if server is not None:
            server.shutdown()
            server.server_close()

    def stop(self) -> None:
        for router_id in list(self._servers):
            self.remove(router_id)
