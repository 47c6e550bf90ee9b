"""What differs between the APIs novalite serves: where each is mounted, how it
negotiates versions and how its errors look.

Compute answers Nova's fault body and negotiates `compute 2.x`; placement negotiates
`placement 1.x` and answers `{"errors": [...]}`; identity and image have no
microversions and their own error shapes. Everything else a request goes through (ids,
authentication, body parsing, logging, the thread hop) is the same for all and lives in
novalite.api.request.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping

from starlette.responses import Response

from novalite.api.faults import HTTPFault

Version = tuple[int, int]


def no_version(headers: Mapping[str, str]) -> Version:
    return (0, 0)


def no_version_headers(version: Version) -> dict[str, str]:
    return {}


@dataclasses.dataclass(frozen=True)
class ApiProfile:
    mount: str  # e.g. "/compute"
    # (the error, request id) -> the response this API answers an error with
    fault: Callable[[HTTPFault, str], Response]
    # request headers -> the version to answer at; raises HTTPFault when out of range
    negotiate: Callable[[Mapping[str, str]], Version] = no_version
    # the version answered at -> headers that say so
    version_headers: Callable[[Version], dict[str, str]] = no_version_headers
    fmt_version: Callable[[Version], str] = lambda v: f"{v[0]}.{v[1]}"  # noqa: E731
