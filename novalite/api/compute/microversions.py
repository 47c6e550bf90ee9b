"""Compute API microversions: the supported range, negotiated from request headers.

History (the versions that change something novalite serves):
  2.1  — the base v2.1 API.
  2.2  — keypairs: `type` (ssh or x509); create answers 201, delete 204.
  2.3  — servers: more OS-EXT-SRV-ATTR fields for admins.
  2.7  — flavors: giving a project access to a public flavor is a 409.
  2.5  — servers: the `ip6` list filter for everyone.
  2.6  — remote consoles: POST /servers/{id}/remote-consoles replaces the os-get*Console
         actions.
  2.9  — servers: `locked`.
  2.10 — keypairs: admins act for another user (`user_id` in the body or the query).
  2.11 — os-services: `forced_down`, and the force-down action.
  2.13 — server groups: `project_id`, `user_id`.
  2.15 — server groups: soft-affinity and soft-anti-affinity policies.
  2.16 — servers: `host_status` for admins.
  2.19 — servers: `description` on create, update and in views.
  2.21 — os-instance-actions: a deleted server's actions.
  2.26 — servers: tags (views, /servers/{id}/tags, the tags list filters).
  2.28 — hypervisors: `cpu_info` an object rather than a JSON string.
  2.31 — os-console-auth-tokens: every console type's tokens (before: a 400).
  2.33 — hypervisors: paging with `limit` and `marker`.
  2.35 — keypairs: paging with `limit` and `marker`.
  2.36 — limits, os-quota-sets: the nova-network limits are gone.
  2.37 — servers: `networks` required on create, "auto" or "none" accepted.
  2.38 — servers: an unknown `status` filter is a 400.
  2.39 — limits: `maxImageMeta` is gone.
  2.41 — aggregates: `uuid`.
  2.47 — servers: the flavor embedded in the view.
  2.50 — os-quota-class-sets: server group limits in, nova-network ones out.
  2.51 — os-instance-actions: events for non-admins.
  2.52 — servers: `tags` on create.
  2.53 — hypervisors: uuids for ids; `hypervisor_hostname_pattern` and `with_servers`
         replace the search and servers routes. os-services: uuids for ids, PUT and
         DELETE /os-services/{uuid}.
  2.55 — flavors: `description`, PUT /flavors/{id}.
  2.57 — limits, quotas: the file injection limits are gone.
  2.58 — os-instance-actions: `updated_at`, paging, `changes-since`.
  2.60 — os-volume_attachments and block_device_mapping_v2: multiattach volumes.
  2.61 — flavors: `extra_specs` in views.
  2.62 — os-instance-actions: `host` (admins) and `hostId` in events.
  2.63 — servers: `trusted_image_certificates` in views.
  2.64 — server groups: `policy` and `rules` replace `policies`.
  2.66 — os-instance-actions and servers: `changes-before`.
  2.71 — servers: `server_groups` in show.
  2.73 — servers: `locked_reason`; `locked` as a list filter and sort key.
  2.74 — servers: `host` and `hypervisor_hostname` on create.
  2.75 — unknown query parameters are a 400 (flavors, keypairs, limits, quota sets); the
         update answer has every server field; flavors' `swap` is 0, not ""; hypervisors
         asked `with_servers` always have `servers`.
  2.76 — os-server-external-events: `power-update`.
  2.78 — servers: /servers/{id}/topology.
  2.80 — migrations: `user_id`, `project_id` (shown and filtered).
  2.83 — servers: more list filters for non-admins.
  2.84 — os-instance-actions: an event's fault `details`.
  2.86 — flavor extra specs: known namespaces validated.
  2.88 — hypervisors: the usage figures and /statistics, /uptime gone; `uptime` in the
         detail.
  2.90 — servers: `hostname` on create, update (and rebuild); shown to everyone.
  2.92 — keypairs: a public key is required; names may hold '@' and '.'.
  2.94 — servers: `hostname` may be a fully qualified name.
  2.96 — servers: `pinned_availability_zone`.
  2.97 — servers: /servers/{id}/shares (Manila shares; none attachable here).
  2.98 — servers: the image's `properties` in the view.
  2.100 — servers: `scheduler_hints` in the view.
Versions in between change APIs novalite does not serve (volume attachments, the image
cache, accelerators: 501; mks and spice consoles: Nova's 400 for a
console type a cloud does not offer), or move operations that carry their
own checks.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from novalite.api.microversion import Negotiator, fmt

MIN_VERSION = (2, 1)
MAX_VERSION = (2, 100)
HEADERS = ("OpenStack-API-Version", "X-OpenStack-Nova-API-Version")

NEGOTIATOR = Negotiator(
    "compute", MIN_VERSION, MAX_VERSION, re.compile(r"^([1-9]\d*)\.([1-9]\d*|0)$"),
    invalid=lambda requested: (f"API Version String {requested} is of invalid format. "
                               "Must be of format MajorNum.MinorNum."),
    unsupported=lambda n, requested: (
        f"Version {requested} is not supported by the API. Minimum is "
        f"{fmt(n.min_version)} and maximum is {fmt(n.max_version)}."),
    legacy_header="X-OpenStack-Nova-API-Version")


def negotiate(headers: Mapping[str, str]) -> tuple[int, int]:
    """The version to answer at; 2.1 without a header, as Nova does."""
    return NEGOTIATOR.negotiate(headers)


def response_headers(version: tuple[int, int]) -> dict[str, str]:
    return {
        "OpenStack-API-Version": f"compute {fmt(version)}",
        "X-OpenStack-Nova-API-Version": fmt(version),
        "Vary": ", ".join(HEADERS),
    }
