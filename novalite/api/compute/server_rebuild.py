"""The `rebuild` server action: the server made again on its host from an image, with
the changes the body asks (Nova's rebuild). Personality files and trusted image
certificates are refused with a 400 naming them: novalite injects no files and checks
no image signatures."""

from __future__ import annotations

from novalite import strutils
from novalite.api import policy
from novalite.api.compute import servers
from novalite.api.compute.schemas import servers as schema
from novalite.api.compute.schemas import validate
from novalite.api.faults import HTTPFault
from novalite.api.request import ApiRequest, ApiResponse
from novalite.compute.api import API
from novalite.db.api import instances

# body field -> instances column
_CHANGES = {"name": "display_name", "description": "display_description",
            "key_name": "key_name", "user_data": "user_data", "hostname": "hostname"}


def _refuse_unhonoured(body: dict) -> None:
    if body.get("personality"):
        raise HTTPFault(400, "personality is not supported by novalite: it injects no "
                             "files; pass user_data instead")
    if body.get("trusted_image_certificates"):
        raise HTTPFault(400, "trusted_image_certificates is not supported by novalite: it "
                             "does not verify image signatures")


def rebuild(req: ApiRequest) -> ApiResponse:
    validate(schema.rebuild_for(req.version), req.body)
    instance = servers.get_instance(req)
    policy.authorize(req.ctx, "os_compute_api:servers:rebuild", instance.project_id)
    body = req.body["rebuild"]
    _refuse_unhonoured(body)
    changes = {column: body[field] for field, column in _CHANGES.items() if field in body}
    changes.update({c: v for c, v in servers.access_ips(body).items() if v is not None})
    preserve = strutils.parse_bool(str(body.get("preserve_ephemeral", False)))
    if preserve is None:
        raise HTTPFault(400, "Invalid input for field/attribute preserve_ephemeral.")
    answered = API().rebuild(
        req.ctx, instance, body["imageRef"],
        lambda: _answer(req, instance.uuid, body.get("adminPass")),
        preserve_ephemeral=preserve, metadata=body.get("metadata"), **changes)
    return ApiResponse(202, {"server": answered})


def _answer(req: ApiRequest, uuid: str, password: str | None) -> dict:
    """The changed server with its (new) password; its key pair from 2.54 and its user
    data from 2.57 even where the view leaves them out, as Nova's answer has them."""
    shown = servers.changed_view(req, uuid)
    stored = instances.instance_get_view(uuid)
    if req.at_least("2.54"):
        shown["key_name"] = stored["key_name"]
    if req.at_least("2.57"):
        shown["user_data"] = stored["user_data"]
    shown["adminPass"] = password or servers.new_password()
    return shown
