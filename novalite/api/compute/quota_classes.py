"""Handlers of /os-quota-class-sets/{class} (admin): a class's limits over [quota]'s;
the `default` class is what every project gets unless given its own. Server group
limits show from 2.50, when the nova-network ones go."""

from __future__ import annotations

from typing import Any

from novalite.api import policy
from novalite.api.compute.schemas import quotas as schema
from novalite.api.compute.schemas import validate
from novalite.api.faults import HTTPFault
from novalite.api.request import ApiRequest, ApiResponse
from novalite.compute import quotas
from novalite.db.api import quotas as quota_db

RULE = "os_compute_api:os-quota-class-sets:%s"
_SERVER_GROUPS = ("server_groups", "server_group_members")


def _shown(req: ApiRequest, name: str, with_id: bool) -> dict:
    hidden = schema.hidden(req.version, (2, 50))
    if not req.at_least("2.50"):
        hidden += _SERVER_GROUPS
    values: dict[str, Any] = quotas.class_limits(name)
    body = {r: values[r] for r in schema.RESOURCES if r not in hidden}
    return {"quota_class_set": {"id": name, **body} if with_id else body}


def show(req: ApiRequest) -> ApiResponse:
    policy.authorize(req.ctx, RULE % "show")
    return ApiResponse(200, _shown(req, req.params["class_name"], with_id=True))


def update(req: ApiRequest) -> ApiResponse:
    body_schema = schema.update_for(req.version, "quota_class_set", (2, 50))
    if not req.at_least("2.50"):
        for resource in _SERVER_GROUPS:
            del body_schema["properties"]["quota_class_set"]["properties"][resource]
    validate(body_schema, req.body)
    policy.authorize(req.ctx, RULE % "update")
    name = req.params["class_name"]
    if not 1 <= len(name) <= 255:
        raise HTTPFault(400, "Invalid input received: quota_class_name has a length "
                             "outside 1 to 255 characters.")
    quota_db.limits_set({r: int(v) for r, v in req.body["quota_class_set"].items()},
                        class_name=name)
    return ApiResponse(200, _shown(req, name, with_id=False))
