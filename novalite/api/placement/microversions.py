"""Placement API microversions: `OpenStack-API-Version: placement 1.x`, 1.0 to 1.39.

History (what each version added):
  1.0  — providers, inventories, usages, provider allocations, /allocations/{consumer}.
  1.1  — GET/PUT /resource_providers/{uuid}/aggregates.
  1.2  — custom resource classes (/resource_classes).
  1.3  — member_of=in:agg1,agg2 on GET /resource_providers.
  1.4  — resources=RC:N on GET /resource_providers.
  1.5  — DELETE /resource_providers/{uuid}/inventories.
  1.6  — traits (/traits, /resource_providers/{uuid}/traits).
  1.7  — PUT /resource_classes/{name} is a body-less create-or-verify.
  1.8  — project_id and user_id required on PUT /allocations/{consumer}.
  1.9  — GET /usages?project_id=&user_id=.
  1.10 — GET /allocation_candidates.
  1.11 — an `allocations` link on resource providers.
  1.12 — PUT /allocations/{consumer} takes a dict by provider; GET shows project/user.
  1.13 — POST /allocations for several consumers at once.
  1.14 — nested providers: parent/root uuids, in_tree=.
  1.15 — last-modified and cache-control: no-cache.
  1.16 — limit= on allocation candidates.
  1.17 — required= traits on allocation candidates.
  1.18 — required= traits on GET /resource_providers.
  1.19 — provider generation in the aggregates GET and PUT bodies.
  1.20 — POST /resource_providers answers 200 with the provider.
  1.21 — member_of on allocation candidates.
  1.22 — forbidden traits (required=!T).
  1.23 — errors carry a `code`.
  1.24 — repeated member_of, ANDed.
  1.25 — granular request groups on allocation candidates.
  1.26 — inventory reserved may equal total.
  1.27 — provider summaries list every inventory class.
  1.28 — consumer generations on allocation writes.
  1.29 — nested-aware allocation candidates.
  1.30 — POST /reshaper.
  1.31 — in_tree on allocation candidates.
  1.32 — forbidden aggregates (member_of=!agg, !in:).
  1.33 — string request group suffixes.
  1.34 — `mappings` in allocation requests and writes.
  1.35 — root_required on allocation candidates.
  1.36 — same_subtree on allocation candidates.
  1.37 — re-parenting and un-parenting providers.
  1.38 — consumer types; GET /usages by consumer type.
  1.39 — required=in:T1,T2 and repeated required.
"""

from __future__ import annotations

import contextvars
import re
from collections.abc import Mapping

from novalite.api.microversion import Negotiator, fmt

MIN_VERSION = (1, 0)
MAX_VERSION = (1, 39)
NEGOTIATOR = Negotiator(
    "placement", MIN_VERSION, MAX_VERSION, re.compile(r"^([1-9]\d*|0)\.([1-9]\d*|0)$"),
    invalid=lambda requested: f"invalid version string: {requested}",
    unsupported=lambda n, requested: f"Unacceptable version header: {requested}")
# The version the current request was answered at, for the error body (`code` from 1.23).
current: contextvars.ContextVar[tuple[int, int]] = contextvars.ContextVar(
    "placement_version", default=MIN_VERSION)


def negotiate(headers: Mapping[str, str]) -> tuple[int, int]:
    """The version to answer at: 1.0 without a header, as placement does."""
    version = NEGOTIATOR.negotiate(headers)
    current.set(version)
    return version


def response_headers(version: tuple[int, int]) -> dict[str, str]:
    return {"OpenStack-API-Version": f"placement {fmt(version)}",
            "Vary": "openstack-api-version"}
