"""keystoneauth adapters for the services novalite's services call over HTTP (placement,
the image service), configured by the Nova-named option group of each ([placement],
[glance]; novalite.conf.service_client).

An all-in-one has no such configuration: it registers its own HTTP server and
credentials as the local endpoint of each group, used only while the group names neither
auth nor endpoint_override.
"""

from __future__ import annotations

import threading
from typing import Any

from keystoneauth1 import loading as ks_loading

from novalite import __version__
from novalite.clients.local_http import LocalClient
from novalite.conf import CONF

# The User-Agent's first word on every request a service makes (the APIs log those at
# DEBUG: a compute's periodic placement report is not a user's request).
CLIENT_NAME = "novalite-service"

# group -> (endpoint, keystoneauth plugin or None, the ASGI app serving it in-process or None)
_local: dict[str, tuple[str, Any, Any]] = {}
_shared: dict[str, Any] = {}  # group -> the adapter its clients share
_lock = threading.Lock()


def _local_endpoint(group: str) -> tuple[str, Any, Any] | None:
    """(endpoint, auth, app) of the all-in-one's own server when it is the group's: the group
    names neither auth nor endpoint_override."""
    with _lock:
        local = _local.get(group)
    if local is None or CONF[group].endpoint_override or \
            ks_loading.load_auth_from_conf_options(CONF, group) is not None:
        return None
    return local


def adapter(group: str) -> Any:
    auth = ks_loading.load_auth_from_conf_options(CONF, group)
    overrides = {}
    local = _local_endpoint(group)
    if local:
        overrides["endpoint_override"], auth, _ = local
    session = ks_loading.load_session_from_conf_options(
        CONF, group, auth=auth, app_name=CLIENT_NAME, app_version=__version__)
    if "endpoint_override" in overrides:
        # The process's own server: never through a proxy, and without requests' scan of
        # the environment for one on each request (a fifth of a compute's start-up report).
        session.session.trust_env = False
    return ks_loading.load_adapter_from_conf_options(CONF, group, session=session,
                                                     auth=auth, **overrides)


def local_client(group: str) -> LocalClient | None:
    """A client of the all-in-one's own server without keystoneauth's cost per call
    (novalite.clients.local_http), when it is the group's; else None."""
    local = _local_endpoint(group)
    if local is None:
        return None
    endpoint, auth, app = local
    return LocalClient(endpoint, auth, CLIENT_NAME, CONF[group], app)


def shared(group: str) -> Any:
    """One adapter per group for the process (its session keeps connections and the
    token), or the all-in-one's local client when the group is its own; made again after
    the group's local endpoint changes."""
    with _lock:
        found = _shared.get(group)
    if found is None:
        found = local_client(group) or adapter(group)
        with _lock:
            found = _shared.setdefault(group, found)
    return found


def use_local(group: str, endpoint: str, auth: Any | None, app: Any = None) -> None:
    with _lock:
        _local[group] = (endpoint, auth, app)
        _shared.pop(group, None)


def forget_local(group: str) -> None:
    with _lock:
        _local.pop(group, None)
        _shared.pop(group, None)
