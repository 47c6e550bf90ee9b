"""The network service's client, as Nova's neutronclient use: keystoneauth with the
[neutron] options. Calls made for a user carry the user's token (the network service
judges what the user may see and do); calls a compute makes for itself (binding a port
to its host) use the service credentials."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from urllib.parse import urlencode

from keystoneauth1 import exceptions as ks_exc

from novalite.clients import adapters
from novalite.conf import CONF
from novalite.conf.neutron_client import GROUP
from novalite.context import RequestContext
from novalite.exception import NovaliteException


class NeutronError(NovaliteException):
    """An error the network service answered: its status, NeutronError type and text."""

    msg_fmt = "%(message)s"

    def __init__(self, status: int, kind: str, message: str) -> None:
        super().__init__(message)
        self.status, self.kind = status, kind


class NeutronUnavailable(NovaliteException):
    msg_fmt = "The network service is unavailable: %(reason)s"
    code = 503
    safe = True



def _error(response: Any) -> NeutronError:
    try:
        body = response.json()["NeutronError"]
        return NeutronError(response.status_code, body.get("type", ""), body.get("message", ""))
    except (ValueError, KeyError, TypeError):
        return NeutronError(response.status_code, "", response.text[:200])


class Client:
    """One caller's view: the user's (ctx with a token) or the service's (admin)."""

    def __init__(self, ctx: RequestContext | None = None, admin: bool = False) -> None:
        self.token = None if admin or ctx is None else ctx.auth_token
        self.request_id = (ctx.global_request_id or ctx.request_id) if ctx else None

    def request(self, method: str, path: str, body: Any = None) -> Any:
        kwargs: dict[str, Any] = {"raise_exc": False}
        if body is not None:
            kwargs["json"] = body
        if self.request_id:
            kwargs["global_request_id"] = self.request_id
        if self.token:
            kwargs.update(headers={"X-Auth-Token": self.token}, authenticated=False)
        if method in ("GET", "DELETE"):
            kwargs["connect_retries"] = CONF.neutron.http_retries
        try:
            response = adapters.shared(GROUP).request(f"/v2.0{path}", method, **kwargs)
        except ks_exc.ClientException as exc:
            raise NeutronUnavailable(reason=f"{method} {path}: {exc}") from exc
        if response.status_code >= 400:
            raise _error(response)
        return response.json() if response.content else None

    def list(self, collection: str, **filters: Any) -> list[dict[str, Any]]:
        query = urlencode([(k, v) for k, values in filters.items()
                           for v in (values if isinstance(values, list | tuple) else [values])])
        path = f"/{collection}" + (f"?{query}" if query else "")
        found: list[dict[str, Any]] = self.request("GET", path)[collection.replace("-", "_")]
        return found

    def show(self, collection: str, name: str, resource_id: str) -> dict[str, Any]:
        found: dict[str, Any] = self.request("GET", f"/{collection}/{resource_id}")[name]
        return found

    def create(self, collection: str, name: str, values: dict[str, Any]) -> dict[str, Any]:
        made: dict[str, Any] = self.request("POST", f"/{collection}", {name: values})[name]
        return made

    def update(self, collection: str, name: str, resource_id: str, values: dict[str, Any]
               ) -> dict[str, Any]:
        changed: dict[str, Any] = self.request("PUT", f"/{collection}/{resource_id}",
                                               {name: values})[name]
        return changed

    def delete(self, collection: str, resource_id: str) -> None:
        self.request("DELETE", f"/{collection}/{resource_id}")

    def devices_up(self, host: str, port_ids: Sequence[str]) -> tuple[str, ...]:
        """Report `port_ids` wired on `host`; those the network service refused (bound
        elsewhere, or gone)."""
        answer = self.request("POST", f"/hosts/{host}/devices_up",
                              {"devices": [*port_ids]})
        return tuple(answer["failed_devices_up"])
