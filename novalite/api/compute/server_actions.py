"""`POST /servers/{id}/action`: the server actions, dispatched by the body's one key.

Each action runs in Nova's order: validate the body (400), find the server in the caller's
scope (404: another project's server does not exist for them), check the policy against
the server's project (403), then the compute API's lock and state checks (409, worded as
Nova words them).
"""

from __future__ import annotations

import re

from novalite import exception
from novalite.api.compute import (
    actions,
    admin_actions,
    floating_ips,
    remote_consoles,
    server_images,
    server_lock,
    server_moves,
    server_networks,
    server_rebuild,
    server_rescue,
    server_shelve,
)
from novalite.api.compute.schemas import server_actions as schema
from novalite.api.faults import HTTPFault
from novalite.api.request import ApiRequest, ApiResponse
from novalite.compute.api import API


def stop(req: ApiRequest) -> ApiResponse:
    API().stop(req.ctx, actions.target(req, schema.stop_server, "servers:stop"))
    return ApiResponse(202)


def start(req: ApiRequest) -> ApiResponse:
    API().start(req.ctx, actions.target(req, schema.start_server, "servers:start"))
    return ApiResponse(202)


def reboot(req: ApiRequest) -> ApiResponse:
    instance = actions.target(req, schema.reboot, "servers:reboot")
    API().reboot(req.ctx, instance, req.body["reboot"]["type"].upper())
    return ApiResponse(202)


def pause(req: ApiRequest) -> ApiResponse:
    API().pause(req.ctx, actions.target(req, schema.pause, "os-pause-server:pause"))
    return ApiResponse(202)


def unpause(req: ApiRequest) -> ApiResponse:
    API().unpause(req.ctx, actions.target(req, schema.unpause, "os-pause-server:unpause"))
    return ApiResponse(202)


def suspend(req: ApiRequest) -> ApiResponse:
    API().suspend(req.ctx, actions.target(req, schema.suspend, "os-suspend-server:suspend"))
    return ApiResponse(202)


def resume(req: ApiRequest) -> ApiResponse:
    API().resume(req.ctx, actions.target(req, schema.resume, "os-suspend-server:resume"))
    return ApiResponse(202)


def trigger_crash_dump(req: ApiRequest) -> ApiResponse:
    if not req.at_least("2.17"):
        raise HTTPFault(404, "The resource could not be found.")
    API().trigger_crash_dump(req.ctx, actions.target(req, schema.trigger_crash_dump,
                                              "servers:trigger_crash_dump"))
    return ApiResponse(202)


def change_password(req: ApiRequest) -> ApiResponse:
    """Nova's answers: 409 for a guest that cannot take it, 501 for a driver or guest
    agent that cannot set one."""
    instance = actions.target(req, schema.change_password, "os-admin-password")
    try:
        API().set_admin_password(req.ctx, instance, req.body["changePassword"]["adminPass"])
    except exception.AdminPasswordNotImplemented:
        raise HTTPFault(501, "Unable to set password on instance") from None
    return ApiResponse(202)


def restore(req: ApiRequest) -> ApiResponse:
    """Nova answers a restore over quota 403 "Restore exceeds quota"."""
    instance = actions.target(req, schema.restore, "os-deferred-delete:restore")
    try:
        API().restore(req.ctx, instance)
    except exception.TooManyInstances:
        raise HTTPFault(403, "Restore exceeds quota") from None
    return ApiResponse(202)


def force_delete(req: ApiRequest) -> ApiResponse:
    instance = actions.target(req, schema.force_delete, "os-deferred-delete:force")
    API().force_delete(req.ctx, instance)
    return ApiResponse(202)


# Control characters but tab and newline, which Nova strips from console output.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f]")


def get_console_output(req: ApiRequest) -> ApiResponse:
    instance = actions.target(req, schema.get_console_output, "os-console-output")
    length = req.body["os-getConsoleOutput"].get("length")
    output = API().get_console_output(req.ctx, instance,
                                      None if length is None else int(length))
    return ApiResponse(200, {"output": _CONTROL.sub("", output)})


ACTIONS: actions.Table = {
    "os-stop": stop,
    "os-start": start,
    "reboot": reboot,
    "pause": pause,
    "unpause": unpause,
    "suspend": suspend,
    "resume": resume,
    "os-getConsoleOutput": get_console_output,
    "trigger_crash_dump": trigger_crash_dump,
    "changePassword": change_password,
    "restore": restore,
    "forceDelete": force_delete,
    "os-resetState": admin_actions.reset_state,
    "injectNetworkInfo": admin_actions.inject_network_info,
    "lock": server_lock.lock,
    "rebuild": server_rebuild.rebuild,
    "createImage": server_images.create_image,
    "createBackup": server_images.create_backup,
    "shelve": server_shelve.shelve,
    "shelveOffload": server_shelve.shelve_offload,
    "unshelve": server_shelve.unshelve,
    "rescue": server_rescue.rescue,
    "unrescue": server_rescue.unrescue,
    "unlock": server_lock.unlock,
    "addFloatingIp": floating_ips.add_floating_ip,
    "removeFloatingIp": floating_ips.remove_floating_ip,
    "addFixedIp": server_networks.add_fixed_ip,
    "removeFixedIp": server_networks.remove_fixed_ip,
    "addSecurityGroup": server_networks.add_security_group,
    "removeSecurityGroup": server_networks.remove_security_group,
    "resize": server_moves.resize,
    "migrate": server_moves.migrate,
    "os-migrateLive": server_moves.live_migrate,
    "evacuate": server_moves.evacuate,
    "confirmResize": server_moves.confirm_resize,
    "revertResize": server_moves.revert_resize,
    "os-getVNCConsole": remote_consoles.get_vnc_console,
    "os-getSerialConsole": remote_consoles.get_serial_console,
    "os-getSPICEConsole": remote_consoles.get_spice_console,
    "os-getRDPConsole": remote_consoles.get_rdp_console,
}


def action(req: ApiRequest) -> ApiResponse:
    return actions.dispatch(req, ACTIONS)
