"""The admin's repair actions on a server (Nova's admin_actions): `os-resetState` forces
a server stuck in a state back to active or error, `injectNetworkInfo` refreshes what
the server's record says of its ports."""

from __future__ import annotations

from novalite.api.compute import actions
from novalite.api.compute.schemas import server_actions as schema
from novalite.api.request import ApiRequest, ApiResponse
from novalite.compute.api import API

RULE = "os-admin-actions:%s"

def reset_state(req: ApiRequest) -> ApiResponse:
    instance = actions.target(req, schema.reset_state, RULE % "reset_state")
    API().reset_state(req.ctx, instance, req.body["os-resetState"]["state"])
    return ApiResponse(202)


def inject_network_info(req: ApiRequest) -> ApiResponse:
    instance = actions.target(req, schema.inject_network_info,
                              RULE % "inject_network_info")
    API().inject_network_info(req.ctx, instance)
    return ApiResponse(202)
