"""How identity entities are rendered: Keystone's shapes with their `links`."""

from __future__ import annotations

import datetime

from novalite.api.request import ApiRequest


def v3(req: ApiRequest) -> str:
    return f"{req.base_url}/v3"


def entity(req: ApiRequest, collection: str, ref: dict) -> dict:
    return {**ref, "links": {"self": f"{v3(req)}/{collection}/{ref['id']}"}}


def collection(req: ApiRequest, name: str, refs: list[dict], path: str | None = None) -> dict:
    """{name: [...], "links": {...}}; `path` is the listing's URL path under /v3."""
    url = f"{v3(req)}/{path or name}"
    if req.query:
        url += "?" + str(req.query)
    return {name: [entity(req, name, r) for r in refs],
            "links": {"self": url, "previous": None, "next": None}}


def timestamp(when: datetime.datetime) -> str:
    """Keystone's token time format (tempest parses %Y-%m-%dT%H:%M:%S.%fZ)."""
    return when.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def domain_ref(domain: dict) -> dict:
    return {"id": domain["id"], "name": domain["name"]}
