"""The volume service's client, as Nova's nova/volume/cinder.py uses cinderclient:
keystoneauth with the [cinder] options, Cinder's attachments API at microversion 3.44.
Calls made for a user carry the user's token (the volume service judges which volumes
the user may see and reserve); calls a compute makes for itself (connecting, completing
and deleting attachments) use the service credentials, as only a service may delete an
attachment a server uses."""

from __future__ import annotations

import time
from typing import Any
from urllib.parse import urlencode

from keystoneauth1 import exceptions as ks_exc

from novalite.clients import adapters
from novalite.conf import CONF
from novalite.conf.cinder_client import GROUP
from novalite.context import RequestContext
from novalite.exception import NovaliteException, VolumeNotCreated

MICROVERSION = "volume 3.44"


class CinderError(NovaliteException):
    """An error the volume service answered: its status and text."""

    msg_fmt = "%(message)s"

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class CinderUnavailable(NovaliteException):
    msg_fmt = "Connection to cinder host failed: %(reason)s"
    code = 503
    safe = True



def _error(response: Any) -> CinderError:
    try:
        (fault,) = response.json().values()
        return CinderError(response.status_code, str(fault["message"]))
    except (ValueError, KeyError, TypeError):
        return CinderError(response.status_code, response.text[:200])


def connection_info(attachment: dict[str, Any]) -> dict[str, Any]:
    """Nova's form of an attachment's connection, {driver_volume_type, data}, from
    Cinder's flattened one (nova.volume.cinder._translate_attachment_ref)."""
    flat = dict(attachment.get("connection_info") or {})
    flat.pop("attachment_id", None)
    kind = flat.pop("driver_volume_type", None)
    return {"driver_volume_type": kind, "data": flat} if kind else {}


class Client:
    """One caller's view: the user's (ctx with a token) or the service's (admin)."""

    def __init__(self, ctx: RequestContext, admin: bool = False) -> None:
        self.token = None if admin else ctx.auth_token
        self.request_id = ctx.global_request_id or ctx.request_id

    def request(self, method: str, path: str, body: Any = None) -> Any:
        headers = {"OpenStack-API-Version": MICROVERSION}
        kwargs: dict[str, Any] = {"raise_exc": False}
        if body is not None:
            kwargs["json"] = body
        if self.request_id:
            kwargs["global_request_id"] = self.request_id
        if self.token:
            headers["X-Auth-Token"] = self.token
            kwargs["authenticated"] = False
        if method in ("GET", "DELETE"):
            kwargs["connect_retries"] = CONF.cinder.http_retries
        try:
            response = adapters.shared(GROUP).request(path, method, headers=headers, **kwargs)
        except ks_exc.ClientException as exc:
            raise CinderUnavailable(reason=f"{method} {path}: {exc}") from exc
        if response.status_code >= 400:
            raise _error(response)
        return response.json() if response.content else None

    def get(self, volume_id: str) -> dict[str, Any]:
        found: dict[str, Any] = self.request("GET", f"/volumes/{volume_id}")["volume"]
        return found

    def create(self, size: int, name: str, image_id: str | None = None,
               snapshot_id: str | None = None, volume_type: str | None = None
               ) -> dict[str, Any]:
        """A new volume (`creating`), blank or from an image or a snapshot."""
        body: dict[str, Any] = {"size": size, "name": name}
        for key, value in (("imageRef", image_id), ("snapshot_id", snapshot_id),
                           ("volume_type", volume_type)):
            if value:
                body[key] = value
        made: dict[str, Any] = self.request("POST", "/volumes", {"volume": body})["volume"]
        return made

    def wait_available(self, volume_id: str) -> None:
        """Until a volume being made is `available` (Nova's
        _await_block_device_map_created), at most [DEFAULT]
        block_device_allocate_retries × block_device_allocate_retries_interval seconds;
        VolumeNotCreated if it ends in `error` or takes longer."""
        attempts = CONF.block_device_allocate_retries + 1
        interval = float(CONF.block_device_allocate_retries_interval)
        started = time.monotonic()
        deadline, delay = started + attempts * interval, 0.05
        while True:
            status = self.get(volume_id)["status"]
            if status == "available":
                return
            if status == "error" or time.monotonic() >= deadline:
                raise VolumeNotCreated(
                    volume_id=volume_id, seconds=int(time.monotonic() - started),
                    attempts=attempts, volume_status=status)
            time.sleep(min(delay, interval, max(0.0, deadline - time.monotonic())))
            delay *= 2

    def snapshot_create(self, volume_id: str, name: str) -> dict[str, Any]:
        """A snapshot of the volume as it is now, even in use (Nova's
        create_snapshot_force)."""
        made: dict[str, Any] = self.request("POST", "/snapshots", {"snapshot": {
            "volume_id": volume_id, "name": name, "force": True}})["snapshot"]
        return made

    def snapshot_get(self, snapshot_id: str) -> dict[str, Any]:
        found: dict[str, Any] = self.request("GET", f"/snapshots/{snapshot_id}")["snapshot"]
        return found

    def update_snapshot_status(self, snapshot_id: str, status: str) -> None:
        """Report on a snapshot the volume service asked this cloud to take or remove
        (Nova's: always "90%", Cinder's sign that Nova's share is done)."""
        self.request("POST", f"/snapshots/{snapshot_id}/action", {
            "os-update_snapshot_status": {"status": status, "progress": "90%"}})

    def delete(self, volume_id: str) -> None:
        self.request("DELETE", f"/volumes/{volume_id}")

    def begin_detaching(self, volume_id: str) -> None:
        self.request("POST", f"/volumes/{volume_id}/action", {"os-begin_detaching": {}})

    def roll_detaching(self, volume_id: str) -> None:
        self.request("POST", f"/volumes/{volume_id}/action", {"os-roll_detaching": {}})

    def attachment_create(self, volume_id: str, instance_uuid: str) -> dict[str, Any]:
        """Reserve the volume for the instance (no connector yet)."""
        made: dict[str, Any] = self.request("POST", "/attachments", {"attachment": {
            "volume_uuid": volume_id, "instance_uuid": instance_uuid}})["attachment"]
        return made

    def attachment_get(self, attachment_id: str) -> dict[str, Any]:
        found: dict[str, Any] = self.request("GET", f"/attachments/{attachment_id}")[
            "attachment"]
        return found

    def attachment_get_all(self, instance_uuid: str) -> list[dict[str, Any]]:
        """Every attachment made for the instance (any project's: the service's view)."""
        found: list[dict[str, Any]] = self.request(
            "GET", f"/attachments?{urlencode({'instance_id': instance_uuid})}&all_tenants=1"
        )["attachments"]
        return found

    def attachment_update(self, attachment_id: str, connector: dict[str, Any]
                          ) -> dict[str, Any]:
        """Connect the reserved volume to `connector`; the connection (Nova's form)."""
        updated = self.request("PUT", f"/attachments/{attachment_id}",
                               {"attachment": {"connector": connector}})["attachment"]
        return connection_info(updated)

    def attachment_complete(self, attachment_id: str) -> None:
        self.request("POST", f"/attachments/{attachment_id}/action", {"os-complete": None})

    def attachment_delete(self, attachment_id: str) -> None:
        """Detach; an attachment already gone is the result wanted (a retry)."""
        try:
            self.request("DELETE", f"/attachments/{attachment_id}")
        except CinderError as exc:
            if exc.status != 404:
                raise
