"""The base image cache: images the image service holds, downloaded once per host into
`<instances_path>/_base/<image id>` with their checksum verified, shared by every
instance's overlay (Nova's image cache)."""

from __future__ import annotations

import os
from typing import Any

from novalite.clients import glance
from novalite.conf import CONF
from novalite.locks import KeyedLocks

_locks = KeyedLocks()


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
        os.makedirs(base_dir(), exist_ok=True)
        glance.download(ctx, image, path)
    return path


def precache(ctx: Any, image: dict) -> bool:
    """Fetch the image ahead of a boot: True when downloaded now, False when this host
    had it."""
    had = os.path.exists(os.path.join(base_dir(), image["id"]))
    fetch(ctx, image)
    return not had


def image_id(path: str) -> str:
    """The image a file of the base cache holds (fetch names each by its image's id)."""
    return os.path.basename(path)
