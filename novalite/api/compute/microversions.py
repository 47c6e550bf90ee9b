"""Compute API microversions: the supported range, negotiated from request headers.

History (one line per version we serve):
  2.1 — the base v2.1 API.
"""

from __future__ import annotations

import re

from novalite.api.faults import HTTPFault

MIN_VERSION = (2, 1)
MAX_VERSION = (2, 1)
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
