"""Compute API microversions: the supported range, negotiated from request headers.

History (the versions that change something novalite serves):
  2.1  — the base v2.1 API.
  2.2  — keypairs: `type` (ssh or x509); create answers 201, delete 204.
  2.3  — servers: more OS-EXT-SRV-ATTR fields for admins.
  2.7  — flavors: giving a project access to a public flavor is a 409.
  2.9  — servers: `locked`.
  2.10 — keypairs: admins act for another user (`user_id` in the body or the query).
  2.13 — server groups: `project_id`, `user_id`.
  2.15 — server groups: soft-affinity and soft-anti-affinity policies.
  2.16 — servers: `host_status` for admins.
  2.19 — servers: `description` on create and in views.
  2.26 — servers: `tags` in views.
  2.28 — hypervisors: `cpu_info` an object rather than a JSON string.
  2.33 — hypervisors: paging with `limit` and `marker`.
  2.35 — keypairs: paging with `limit` and `marker`.
  2.36 — limits: the nova-network limits (floating IPs, security groups) are gone.
  2.37 — servers: `networks` required on create, "auto" or "none" accepted.
  2.38 — servers: an unknown `status` filter is a 400.
  2.39 — limits: `maxImageMeta` is gone.
  2.41 — aggregates: `uuid`.
  2.47 — servers: the flavor embedded in the view.
  2.53 — hypervisors: uuids for ids; `hypervisor_hostname_pattern` and `with_servers`
         replace the search and servers routes.
  2.55 — flavors: `description`, PUT /flavors/{id}.
  2.57 — limits: `maxPersonality` and `maxPersonalitySize` are gone.
  2.61 — flavors: `extra_specs` in views.
  2.63 — servers: `trusted_image_certificates` in views.
  2.64 — server groups: `policy` and `rules` replace `policies`.
  2.71 — servers: `server_groups` in show.
  2.73 — servers: `locked_reason`.
  2.74 — servers: `host` and `hypervisor_hostname` on create.
Versions in between change APIs novalite does not serve yet.
"""

from __future__ import annotations

import re

from novalite.api.faults import HTTPFault

MIN_VERSION = (2, 1)
MAX_VERSION = (2, 74)
HEADERS = ("OpenStack-API-Version", "X-OpenStack-Nova-API-Version")
_VERSION = re.compile(r"^([1-9]\d*)\.([1-9]\d*|0)$")


def fmt(version: tuple[int, int]) -> str:
    return f"{version[0]}.{version[1]}"


def _requested(headers) -> str | None:
    value = headers.get("openstack-api-version")
    if value:
        for item in value.split(","):
            service, _, ver = item.strip().partition(" ")
            if service.lower() == "compute":
                return ver.strip()
    return headers.get("x-openstack-nova-api-version")


def negotiate(headers) -> tuple[int, int]:
    """The version to answer at; 2.1 without a header, as Nova does."""
    requested = _requested(headers)
    if requested is None:
        return MIN_VERSION
    if requested.lower() == "latest":
        return MAX_VERSION
    match = _VERSION.match(requested.strip())
    if not match:
        raise HTTPFault(400, f"API Version String {requested} is of invalid format. Must be "
                             "of format MajorNum.MinorNum.")
    version = (int(match.group(1)), int(match.group(2)))
    if not MIN_VERSION <= version <= MAX_VERSION:
        raise HTTPFault(406, f"Version {requested} is not supported by the API. Minimum is "
                             f"{fmt(MIN_VERSION)} and maximum is {fmt(MAX_VERSION)}.")
    return version


def response_headers(version: tuple[int, int]) -> dict[str, str]:
    return {
        "OpenStack-API-Version": f"compute {fmt(version)}",
        "X-OpenStack-Nova-API-Version": fmt(version),
        "Vary": ", ".join(HEADERS),
    }
