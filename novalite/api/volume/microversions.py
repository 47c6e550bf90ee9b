"""Block storage API microversions: the supported range, negotiated from
`OpenStack-API-Version: volume 3.x` (no header: 3.0), worded as Cinder words its errors.

History (the versions that change something novalite serves):
  3.0  — the base v3 API.
  3.3  — user messages (/messages).
  3.13 — volumes: `group_id` in the detail.
  3.14 — snapshots: `group_snapshot_id`.
  3.27 — attachments (/attachments): reserve, connect, list, show and delete.
  3.41 — snapshots: `user_id`.
  3.44 — attachments: the os-complete action (the volume is `in-use`).
  3.48 — volumes: `shared_targets` and `service_uuid` in the detail.
  3.54 — attachments: `mode` (rw or ro) on create.
  3.63 — volumes: `volume_type_id` in the detail.
  3.65 — volumes and snapshots: `consumes_quota`.
  3.67 — the project id is optional in URLs (novalite serves both forms at every version,
         as Cinder's router does).
  3.69 — volumes: `shared_targets` may be null.
Versions in between change APIs novalite does not serve (backups, groups, clusters,
transfers: 501).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from novalite.api.microversion import Negotiator, fmt

MIN_VERSION = (3, 0)
MAX_VERSION = (3, 70)

NEGOTIATOR = Negotiator(
    "volume", MIN_VERSION, MAX_VERSION, re.compile(r"^([1-9]\d*)\.([1-9]\d*|0)$"),
    invalid=lambda requested: (f"API Version String {requested} is of invalid format. "
                               "Must be of format MajorNum.MinorNum."),
    unsupported=lambda n, requested: (
        f"Version {requested} is not supported by the API. Minimum is "
        f"{fmt(n.min_version)} and maximum is {fmt(n.max_version)}."))


def negotiate(headers: Mapping[str, str]) -> tuple[int, int]:
    return NEGOTIATOR.negotiate(headers)


def response_headers(version: tuple[int, int]) -> dict[str, str]:
    return {"OpenStack-API-Version": f"volume {fmt(version)}",
            "Vary": "OpenStack-API-Version"}
