"""Remote consoles: POST /servers/{id}/remote-consoles (2.6), the os-getVNCConsole,
os-getSerialConsole, os-getSPICEConsole and os-getRDPConsole actions before it, and
GET /os-console-auth-tokens/{token} (admin).

The URL answered opens the console through this cloud's console proxy
(novalite.api.console). novalite's drivers offer VNC (noVNC) and serial consoles; the
other protocols get Nova's 400 for a console type a cloud does not offer, and RDP
Nova's answers since it removed the Hyper-V driver."""

from __future__ import annotations

from novalite import exception
from novalite.api import policy
from novalite.api.compute import actions
from novalite.api.compute.schemas import remote_consoles as schema
from novalite.api.compute.schemas import validate
from novalite.api.compute.servers import get_instance
from novalite.api.compute.unserved import GONE
from novalite.api.faults import HTTPFault
from novalite.api.request import ApiRequest, ApiResponse
from novalite.compute.consoles_api import ConsoleAPI
from novalite.db.api import console_auth_tokens
from novalite.objects.instance import Instance

RULE = "os-remote-consoles"
NOT_FOUND = "The resource could not be found."
# webob's text for a bare HTTPBadRequest, which Nova raises there
BAD_REQUEST = ("The server could not comply with the request since it is either "
               "malformed or otherwise incorrect.")


def _public_root(req: ApiRequest) -> str:
    return req.base_url.removesuffix("/compute")


def _url(req: ApiRequest, instance: Instance, protocol: str, console_type: str) -> str:
    api = ConsoleAPI()
    if protocol == "vnc":
        return api.get_vnc_console(req.ctx, instance, console_type, _public_root(req))
    if protocol == "serial":
        return api.get_serial_console(req.ctx, instance, console_type, _public_root(req))
    raise exception.ConsoleTypeUnavailable(console_type=console_type)


def create(req: ApiRequest) -> ApiResponse:
    if not req.at_least("2.6"):  # the actions below serve until then
        raise HTTPFault(404, NOT_FOUND)
    validate(schema.create(mks=req.at_least("2.8"), spice_direct=req.at_least("2.99")),
             req.body)
    instance = get_instance(req)
    policy.authorize(req.ctx, f"os_compute_api:{RULE}", instance.project_id)
    protocol = req.body["remote_console"]["protocol"]
    console_type = req.body["remote_console"]["type"]
    if protocol == "rdp":
        raise HTTPFault(400, f"Unavailable console type {protocol}.")
    url = _url(req, instance, protocol, console_type)
    return ApiResponse(200, {"remote_console": {"protocol": protocol, "type": console_type,
                                                "url": url}})


def _legacy(req: ApiRequest, body_schema: dict, protocol: str) -> ApiResponse:
    """The actions 2.6 replaced: 404 from there, as Nova's."""
    if req.at_least("2.6"):
        raise HTTPFault(404, NOT_FOUND)
    instance = actions.target(req, body_schema, RULE)
    console_type = next(iter(req.body.values()))["type"]
    return ApiResponse(200, {"console": {
        "type": console_type, "url": _url(req, instance, protocol, console_type)}})


def get_vnc_console(req: ApiRequest) -> ApiResponse:
    return _legacy(req, schema.get_vnc_console, "vnc")


def get_serial_console(req: ApiRequest) -> ApiResponse:
    return _legacy(req, schema.get_serial_console, "serial")


def get_spice_console(req: ApiRequest) -> ApiResponse:
    return _legacy(req, schema.get_spice_console, "spice")


def get_rdp_console(req: ApiRequest) -> ApiResponse:
    """Removed with Nova's Hyper-V driver (29.0.0): Nova's 410."""
    if req.at_least("2.6"):
        raise HTTPFault(404, NOT_FOUND)
    raise HTTPFault(410, GONE)


def show_token(req: ApiRequest) -> ApiResponse:
    """Where a token's console is, for an operator: before 2.31 only RDP tokens were
    shown, and there are none now (Nova's bare 400)."""
    if not req.at_least("2.31"):
        raise HTTPFault(400, BAD_REQUEST)
    policy.authorize(req.ctx, "os_compute_api:os-console-auth-tokens")
    auth = console_auth_tokens.validate(req.params["token"])
    if auth is None:
        raise HTTPFault(404, "Token not found")
    return ApiResponse(200, {"console": {
        "instance_uuid": auth.instance_uuid, "host": auth.host, "port": auth.port,
        "internal_access_path": auth.internal_access_path}})
