"""Flavor views at 2.1."""

from __future__ import annotations

from novalite.api.compute.views import links
from novalite.objects.flavor import Flavor


def basic(flavor: Flavor, base_url: str) -> dict:
    return {"id": flavor.flavorid, "name": flavor.name,
            "links": links(base_url, "flavors", flavor.flavorid)}


def detail(flavor: Flavor, base_url: str) -> dict:
    return {
        **basic(flavor, base_url),
        "ram": flavor.memory_mb,
        "disk": flavor.root_gb,
        "vcpus": flavor.vcpus,
        "swap": flavor.swap or "",
        "rxtx_factor": flavor.rxtx_factor,
        "OS-FLV-EXT-DATA:ephemeral": flavor.ephemeral_gb,
        "OS-FLV-DISABLED:disabled": flavor.disabled,
        "os-flavor-access:is_public": flavor.is_public,
    }
