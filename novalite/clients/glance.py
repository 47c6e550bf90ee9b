"""The image service as computes and volume managers reach it over HTTP ([glance]
options, keystoneauth): read an image's record and data, and write the data of a snapshot
the API created."""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
import urllib.parse
from collections.abc import Iterable
from typing import Any

from keystoneauth1 import exceptions as ks_exc

from novalite import exception
from novalite.clients import adapters
from novalite.conf.glance_client import GROUP

LOG = logging.getLogger(__name__)
CHUNK = 1024 * 1024


class ImageServiceUnavailable(exception.NovaliteException):
    msg_fmt = ("The image service is unreachable or failing (%(reason)s); check the [glance] "
               "options (endpoint_override or auth) and that novalite-api serves /image.")


class ImageUnusable(exception.NovaliteException):
    msg_fmt = "Image %(image_id)s cannot be used: %(reason)s"


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


def download(ctx: Any, image: dict[str, Any], path: str) -> None:
    """The active image's data into `path`, its checksum verified against the image
    service's; written beside it under a temporary name and renamed into place, so no
    reader ever finds half an image at `path`."""
    image_id = image["id"]
    if image.get("status") != "active":
        raise ImageUnusable(image_id=image_id,
                            reason=f"its status is {image.get('status')}, not active")
    algorithm, expected = image.get("os_hash_algo"), image.get("os_hash_value")
    if not (algorithm and expected):
        algorithm, expected = "md5", image.get("checksum")
    digest = hashlib.new(algorithm) if expected else None
    response = request("GET", f"/v2/images/{image_id}/file", ctx, stream=True)
    if response.status_code != 200:
        raise ImageUnusable(image_id=image_id,
                            reason=f"its data could not be downloaded ({response.status_code})")
    LOG.info("Downloading image %s (%s bytes) to %s", image_id, image.get("size"), path)
    fd, temporary = tempfile.mkstemp(dir=os.path.dirname(path), prefix=f".{image_id}.")
    try:
        with os.fdopen(fd, "wb") as out:
            for chunk in response.iter_content(CHUNK):
                if digest is not None:
                    digest.update(chunk)
                out.write(chunk)
        if digest is not None and digest.hexdigest() != expected:
            raise ImageUnusable(image_id=image_id, reason=f"its {algorithm} checksum does "
                                "not match the image service's; the download was discarded")
        os.replace(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)
