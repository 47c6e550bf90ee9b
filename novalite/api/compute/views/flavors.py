"""Flavor views, per microversion.

2.1  — id, name, links; the detail adds sizes, swap ("" when none), rxtx_factor and the
       OS-FLV-EXT-DATA / OS-FLV-DISABLED / os-flavor-access extension fields.
2.55 — `description`, in the list too.
2.61 — `extra_specs` in show/detail/create/update, when policy lets the caller read them.
2.75 — `swap` 0, not "", when there is none.
"""

from __future__ import annotations

from typing import Any

from novalite.api.compute.views import links
from novalite.objects.flavor import Flavor


def basic(flavor: Flavor, base_url: str, version: tuple[int, int] = (2, 1)) -> dict:
    body: dict[str, Any] = {"id": flavor.flavorid, "name": flavor.name,
                            "links": links(base_url, "flavors", flavor.flavorid)}
    if version >= (2, 55):
        body["description"] = flavor.description
    return body


def detail(flavor: Flavor, base_url: str, version: tuple[int, int] = (2, 1),
           extra_specs: bool = False) -> dict:
    """`extra_specs`: whether the caller may see them (only asked from 2.61)."""
    body = {
        "id": flavor.flavorid,
        "name": flavor.name,
        "ram": flavor.memory_mb,
        "disk": flavor.root_gb,
        "swap": flavor.swap or ("" if version < (2, 75) else 0),
        "OS-FLV-EXT-DATA:ephemeral": flavor.ephemeral_gb,
        "OS-FLV-DISABLED:disabled": flavor.disabled,
        "vcpus": flavor.vcpus,
        "os-flavor-access:is_public": flavor.is_public,
        "rxtx_factor": flavor.rxtx_factor or "",
        "links": links(base_url, "flavors", flavor.flavorid),
    }
    if version >= (2, 55):
        body["description"] = flavor.description
    if extra_specs and version >= (2, 61):
        body["extra_specs"] = dict(flavor.extra_specs)
    return body


def access(flavorid: str, projects: list[str]) -> dict:
    """os-flavor-access: one entry per project given access to a private flavor."""
    return {"flavor_access": [{"flavor_id": flavorid, "tenant_id": project}
                              for project in projects]}
