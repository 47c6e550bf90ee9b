"""Microversion negotiation, one rule for the compute and placement APIs: the version a
request asks for in `OpenStack-API-Version: <service> X.Y` (or a service's legacy header),
"latest" meaning the maximum, no header the minimum; a malformed version is a 400 and one
outside the range a 406, each worded as that service words it upstream."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping

from novalite.api.faults import HTTPFault

Version = tuple[int, int]


def fmt(version: Version) -> str:
    return f"{version[0]}.{version[1]}"


@dataclasses.dataclass(frozen=True)
class Negotiator:
    service: str  # the name in OpenStack-API-Version, e.g. "compute"
    min_version: Version
    max_version: Version
    pattern: re.Pattern[str]  # a well-formed "X.Y" for this service
    invalid: Callable[[str], str]  # the 400's text for a malformed version
    unsupported: Callable[[Negotiator, str], str]  # the 406's text for one out of range
    legacy_header: str | None = None  # e.g. X-OpenStack-Nova-API-Version

    def requested(self, headers: Mapping[str, str]) -> str | None:
        for item in (headers.get("openstack-api-version") or "").split(","):
            service, _, value = item.strip().partition(" ")
            if service.lower() == self.service:
                return value.strip()
        return headers.get(self.legacy_header.lower()) if self.legacy_header else None

    def negotiate(self, headers: Mapping[str, str]) -> Version:
        requested = self.requested(headers)
        if requested is None:
            return self.min_version
        if requested.lower() == "latest":
            return self.max_version
        match = self.pattern.match(requested.strip())
        if not match:
            raise HTTPFault(400, self.invalid(requested))
        version = (int(match.group(1)), int(match.group(2)))
        if not self.min_version <= version <= self.max_version:
            raise HTTPFault(406, self.unsupported(self, requested))
        return version
