"""The shared start of the processes that serve an HTTP API (novalite-api, -network,
-placement), as service_main is the RPC services'."""

from __future__ import annotations

import logging
from typing import Any

from novalite import affinity, http_server
from novalite.cmd import common
from novalite.db import session

LOG = logging.getLogger(__name__)


def prepare() -> None:
    """Options and logging, the process's CPU, then a database that answers."""
    common.parse_args()
    affinity.pin()
    session.wait_for_database()


def serve(name: str, host: str, port: int, path: str, app: Any = None) -> None:
    """Serve `app` (every API if None) in the foreground until a signal, once requests
    in flight are done."""
    server = http_server.make_server(host, port, app)
    LOG.info("%s listening on http://%s:%s%s", name, host, port, path)
    http_server.freeze_heap()
    http_server.run_foreground(server)
