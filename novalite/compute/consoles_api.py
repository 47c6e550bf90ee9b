"""The compute API's side of remote consoles (Nova's compute.api.API get_vnc_console and
get_serial_console, and the console proxy's token check).

The instance's compute says where the console listens; the token that opens it is made
here, since computes never touch the database, and the URL carries it as Nova's does
(noVNC's `path` parameter, a `token` parameter for the others). The proxy checks a token
in two steps: the database says what it opens, and the compute says whether that is
still where the guest's console is."""

from __future__ import annotations

import urllib.parse
from collections.abc import Callable

from novalite import exception
from novalite.compute import guards
from novalite.compute import rpcapi as compute_rpcapi
from novalite.compute.console_steps import NOVNC
from novalite.conf import CONF
from novalite.context import RequestContext, get_admin_context
from novalite.db.api import console_auth_tokens, instances
from novalite.db.api.console_auth_tokens import ConsoleAuth
from novalite.objects import states
from novalite.objects.console import ConsoleEndpoint
from novalite.objects.instance import Instance

# Nova's reject_instance_state on its console calls.
REJECT_TASKS = (states.DELETING, states.MIGRATING)

# Where this cloud's own console proxy (novalite.api.console) serves, under the root the
# client reached the API on.
NOVNC_PAGE = "/novnc/vnc_lite.html?path=novnc/websockify"
SERIAL_PATH = "/serial/"

Fetch = Callable[[RequestContext, str, Instance, str], ConsoleEndpoint]


def access_url(base: str, console_type: str, token: str) -> str:
    """The URL a client opens: noVNC (since 1.1) takes the token inside its `path`
    parameter, the websocket's own query string; the others a `token` parameter."""
    if console_type != NOVNC:
        return f"{base}?token={token}"
    parsed = urllib.parse.urlparse(base)
    params = urllib.parse.parse_qs(parsed.query)
    params["path"] = [f"{params.get('path', [''])[0]}?token={token}"]
    return parsed._replace(query=urllib.parse.urlencode(params, doseq=True)).geturl()


def base_url(console_type: str, public_root: str) -> str:
    """The operator's base URL, else this cloud's proxy on `public_root` (the scheme,
    host and port the client used)."""
    if console_type == NOVNC:
        return CONF.vnc.novncproxy_base_url or public_root + NOVNC_PAGE
    if CONF.serial_console.base_url:
        return CONF.serial_console.base_url
    return "ws" + public_root.removeprefix("http") + SERIAL_PATH


class ConsoleAPI:
    def __init__(self) -> None:
        self.compute = compute_rpcapi.ComputeAPI()

    def get_vnc_console(self, ctx: RequestContext, instance: Instance, console_type: str,
                        public_root: str) -> str:
        return self._url(ctx, instance, console_type, "get_vnc_console",
                         self.compute.get_vnc_console, public_root)

    def get_serial_console(self, ctx: RequestContext, instance: Instance,
                           console_type: str, public_root: str) -> str:
        return self._url(ctx, instance, console_type, "get_serial_console",
                         self.compute.get_serial_console, public_root)

    def _url(self, ctx: RequestContext, instance: Instance, console_type: str, action: str,
             fetch: Fetch, public_root: str) -> str:
        host = guards.check_host(instance)
        guards.reject_task_state(instance, action, REJECT_TASKS)
        endpoint = fetch(ctx, host, instance, console_type)
        token = console_auth_tokens.authorize(
            console_type, endpoint.host, endpoint.port, endpoint.internal_access_path,
            instance.uuid, CONF.consoleauth.token_ttl)
        return access_url(base_url(console_type, public_root), console_type, token)

    def connect_info(self, token: str, console_types: tuple[str, ...]) -> ConsoleAuth | None:
        """What a proxy of `console_types` may connect `token` to, or None."""
        auth = console_auth_tokens.validate(token) if token else None
        if auth is None or auth.console_type not in console_types:
            return None
        try:
            instance = instances.instance_get(auth.instance_uuid)
        except exception.InstanceNotFound:
            return None
        if not instance.host:
            return None
        still_there = self.compute.validate_console_port(
            get_admin_context(), instance.host, instance, auth.port,
            auth.internal_access_path, auth.console_type)
        return auth if still_there else None

