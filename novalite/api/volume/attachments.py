"""/attachments (from 3.27): how a consumer (Nova's compute) attaches a volume. Create
reserves it (with a connector: connects it at once), update connects it to the
consumer's connector and answers the connection, the os-complete action (3.44) marks
it in use, delete detaches it. Another project's attachment is a 404."""

from __future__ import annotations

from typing import Any

from novalite.api import policy
from novalite.api.compute.schemas import validate
from novalite.api.faults import HTTPFault
from novalite.api.microversion import fmt
from novalite.api.request import ApiRequest, ApiResponse
from novalite.api.volume import listing, schemas, views
from novalite.api.volume.volumes import scope
from novalite.db import session
from novalite.volume import attach, attachments, errors, volumes
from novalite.volume.records import Attachment

FILTERS = ("volume_id", "status", "instance_id", "attach_status")
SORT_KEYS = ("id", "status", "volume_id", "instance", "created_at")
# a filter's name -> the attachment's field it compares
_FIELDS = {"volume_id": "volume_id", "status": "status", "attach_status": "status",
           "instance_id": "instance_uuid", "instance": "instance_uuid"}


def _at_least(req: ApiRequest, version: str) -> None:
    if not req.at_least(version):
        raise HTTPFault(404, f"API version {fmt(req.version)} is not supported on this "
                             "method.")


def _value(found: Attachment, key: str) -> Any:
    return getattr(found, _FIELDS.get(key, key))


def _listed(req: ApiRequest) -> list[Attachment]:
    _at_least(req, "3.27")
    query = listing.parse(req, FILTERS, SORT_KEYS)
    project = None if req.ctx.is_admin and query.all_tenants else req.ctx.project_id
    with session.reader() as s:
        found = attachments.list_attachments(s, project)
    matching = [a for a in found
                if all(str(_value(a, k)) == v for k, v in query.filters.items())]
    return listing.page(matching, query, _value, lambda marker: errors.VolumeAttachmentNotFound(
        filter=f"attachment_id = {marker}"))


def index(req: ApiRequest) -> ApiResponse:
    return ApiResponse(200, {"attachments": [views.attachment_summary(a)
                                             for a in _listed(req)]})


def detail(req: ApiRequest) -> ApiResponse:
    return ApiResponse(200, {"attachments": [views.attachment(a) for a in _listed(req)]})


def show(req: ApiRequest) -> ApiResponse:
    _at_least(req, "3.27")
    return ApiResponse(200, {"attachment": views.attachment(attach.get(scope(req),
                                                                       req.params["id"]))})


def _found(req: ApiRequest, rule: str) -> Attachment:
    found = attach.get(scope(req), req.params["id"])
    policy.authorize(req.ctx, rule, found.project_id)
    return found


def create(req: ApiRequest) -> ApiResponse:
    _at_least(req, "3.27")
    validate(schemas.CREATE_ATTACHMENT_V354 if req.at_least("3.54")
             else schemas.CREATE_ATTACHMENT, req.body)
    values = req.body["attachment"]
    with session.core_reader() as s:
        volume = volumes.get(s, values["volume_uuid"], scope(req))
    policy.authorize(req.ctx, "volume:attachment_create", volume.project_id)
    made = attach.create(req.ctx, scope(req), volume.id, values.get("instance_uuid"),
                         values.get("connector"), values.get("mode", "null"),
                         lambda rule: policy.authorize(req.ctx, rule, volume.project_id))
    return ApiResponse(200, {"attachment": views.attachment(made)})


def update(req: ApiRequest) -> ApiResponse:
    _at_least(req, "3.27")
    validate(schemas.UPDATE_ATTACHMENT, req.body)
    found = _found(req, "volume:attachment_update")
    updated = attach.update(req.ctx, scope(req), found.id,
                            req.body["attachment"]["connector"])
    return ApiResponse(200, {"attachment": views.attachment(updated)})


def delete(req: ApiRequest) -> ApiResponse:
    _at_least(req, "3.27")
    found = _found(req, "volume:attachment_delete")
    left = attach.delete(req.ctx, scope(req), found.id)
    return ApiResponse(200, {"attachments": [views.attachment_summary(a) for a in left]})


def action(req: ApiRequest) -> ApiResponse:
    """POST /attachments/{id}/action: os-complete (3.44) is Cinder's only one."""
    if not isinstance(req.body, dict) or len(req.body) != 1:
        raise HTTPFault(400, "Malformed request body")
    if "os-complete" not in req.body:
        raise HTTPFault(400, f"There is no such action: {next(iter(req.body))}")
    _at_least(req, "3.44")
    validate(schemas.COMPLETE_ATTACHMENT, req.body)
    found = _found(req, "volume:attachment_complete")
    attach.complete(scope(req), found.id)
    return ApiResponse(204)
