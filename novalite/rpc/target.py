"""Where a message goes: a topic, optionally one server on it, at an API version."""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class Target:
    topic: str | None = None
    server: str | None = None
    version: str = "1.0"
    namespace: str | None = None
    fanout: bool = False

    def replace(self, **changes) -> Target:
        return dataclasses.replace(self, **{k: v for k, v in changes.items() if v is not None})


def parse_version(version: str) -> tuple[int, int]:
    major, _, minor = version.partition(".")
    return int(major), int(minor or 0)


def version_is_compatible(available: str, requested: str) -> bool:
    """True when a server at `available` can handle a message sent at `requested`."""
    have, want = parse_version(available), parse_version(requested)
    return have[0] == want[0] and have[1] >= want[1]
