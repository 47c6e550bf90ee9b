"""The image service as computes reach it over HTTP ([glance] options, keystoneauth):
read an image's record and data, and write the data of a snapshot the API created."""

from __future__ import annotations

import urllib.parse
from collections.abc import Iterable
from typing import Any

from keystoneauth1 import exceptions as ks_exc

from novalite import exception
from novalite.clients import adapters
from novalite.conf.glance_client import GROUP


class ImageServiceUnavailable(exception.NovaliteException):
    msg_fmt = ("The image service is unreachable or failing (%(reason)s); check the [glance] "
               "options (endpoint_override or auth) and that novalite-api serves /image.")


def request(method: str, url: str, ctx: Any, **kwargs: Any) -> Any:
    headers = dict(kwargs.pop("headers", {}))
    if ctx is not None and getattr(ctx, "global_request_id", None):
        headers["X-OpenStack-Request-ID"] = ctx.global_request_id
    try:
        return adapters.adapter(GROUP).request(url, method, raise_exc=False,
                                               headers=headers, **kwargs)
    except ks_exc.ClientException as exc:
        raise ImageServiceUnavailable(reason=f"{method} {url}: {exc}") from exc


def show(ctx: Any, image_id: str) -> dict[str, Any]:
    """The image's record (Glance v2 fields and properties at the top level)."""
    response = request("GET", f"/v2/images/{image_id}", ctx)
    if response.status_code == 404:
        raise exception.ImageNotFound(image_id=image_id)
    if response.status_code != 200:
        raise ImageServiceUnavailable(reason=f"GET image {image_id} answered "
                                      f"{response.status_code}")
    found: dict[str, Any] = response.json()
    return found


def upload(ctx: Any, image_id: str, data: Iterable[bytes], disk_format: str,
           container_format: str = "bare") -> None:
    """Give a queued image (a snapshot) its formats, then its data: Nova leaves the
    formats to whoever writes the data, since only the driver knows them."""
    patch = [{"op": "replace", "path": "/disk_format", "value": disk_format},
             {"op": "replace", "path": "/container_format", "value": container_format}]
    set_formats = request("PATCH", f"/v2/images/{image_id}", ctx, json=patch, headers={
        "Content-Type": "application/openstack-images-v2.1-json-patch"})
    if set_formats.status_code == 404:
        raise exception.ImageNotFound(image_id=image_id)
    if set_formats.status_code != 200:
        raise ImageServiceUnavailable(reason=f"PATCH image {image_id} answered "
                                      f"{set_formats.status_code}: {set_formats.text}")
    stored = request("PUT", f"/v2/images/{image_id}/file", ctx, data=iter(data),
                     headers={"Content-Type": "application/octet-stream"})
    if stored.status_code == 404:
        raise exception.ImageNotFound(image_id=image_id)
    if stored.status_code != 204:
        raise ImageServiceUnavailable(reason=f"PUT image {image_id} data answered "
                                      f"{stored.status_code}: {stored.text}")


def images_with(ctx: Any, properties: dict[str, str]) -> list[dict[str, Any]]:
    """The images whose properties include `properties`, newest first (every page)."""
    found: list[dict[str, Any]] = []
    url: str | None = "/v2/images?" + urllib.parse.urlencode(
        {**properties, "sort_key": "created_at", "sort_dir": "desc"})
    while url:
        response = request("GET", url, ctx)
        if response.status_code != 200:
            raise ImageServiceUnavailable(reason=f"GET {url} answered "
                                          f"{response.status_code}")
        body = response.json()
        found.extend(body["images"])
        url = body.get("next")
    return found


def delete(ctx: Any, image_id: str) -> None:
    """Best effort, as Nova's clean-up of a failed snapshot is: a gone image is fine."""
    response = request("DELETE", f"/v2/images/{image_id}", ctx)
    if response.status_code not in (204, 404):
        raise ImageServiceUnavailable(reason=f"DELETE image {image_id} answered "
                                      f"{response.status_code}")
