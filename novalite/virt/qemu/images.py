"""The base image cache: images the image service holds, downloaded once per host into
`<instances_path>/_base/<image id>` with their checksum verified, shared by every
instance's overlay (Nova's image cache)."""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
from typing import Any

from novalite import exception
from novalite.clients import glance
from novalite.conf import CONF
from novalite.locks import KeyedLocks

LOG = logging.getLogger(__name__)

CHUNK = 1024 * 1024
_locks = KeyedLocks()


class ImageUnusable(exception.NovaliteException):
    msg_fmt = "Image %(image_id)s cannot be used: %(reason)s"


def base_dir() -> str:
    return os.path.join(instances_path(), CONF.image_cache.subdirectory_name)


def instances_path() -> str:
    return CONF.instances_path or os.path.join(CONF.state_path, "instances")


def fetch(ctx: Any, image: dict) -> str:
    """The path of the image's bytes in the base cache, downloading them first if this
    host has not yet."""
    image_id = image["id"]
    path = os.path.join(base_dir(), image_id)
    with _locks(image_id):
        if os.path.exists(path):
            return path
        if image.get("status") != "active":
            raise ImageUnusable(image_id=image_id,
                                reason=f"its status is {image.get('status')}, not active")
        os.makedirs(base_dir(), exist_ok=True)
        _download(ctx, image, path)
    return path


def _download(ctx: Any, image: dict, path: str) -> None:
    image_id = image["id"]
    algorithm, expected = image.get("os_hash_algo"), image.get("os_hash_value")
    if not (algorithm and expected):
        algorithm, expected = "md5", image.get("checksum")
    digest = hashlib.new(algorithm) if expected else None
    response = glance.request("GET", f"/v2/images/{image_id}/file", ctx, stream=True)
    if response.status_code != 200:
        raise ImageUnusable(image_id=image_id,
                            reason=f"its data could not be downloaded ({response.status_code})")
    LOG.info("Downloading image %s (%s bytes) into the base image cache", image_id,
             image.get("size"))
    fd, temporary = tempfile.mkstemp(dir=base_dir(), prefix=f".{image_id}.")
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
