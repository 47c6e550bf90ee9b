"""Nova's /os-volumes_boot: the servers API under the name of the old block device
mapping extension, which Nova serves until microversion 2.102 (its 404 from 2.103)."""

from __future__ import annotations

from novalite.api.compute import server_actions, servers
from novalite.api.faults import HTTPFault
from novalite.api.request import ApiRequest, ApiResponse, Handler

GONE_FROM = "2.103"


def _alias(handler: Handler) -> Handler:
    def serve(req: ApiRequest) -> ApiResponse:
        if req.at_least(GONE_FROM):
            raise HTTPFault(404, "The resource could not be found.")
        return handler(req)
    return serve


ROUTES = [("/v2.1/os-volumes_boot" + path, method, _alias(handler), True)
          for path, method, handler in (
              ("", "GET", servers.index), ("", "POST", servers.create),
              ("/detail", "GET", servers.detail), ("/{server_id}", "GET", servers.show),
              ("/{server_id}", "PUT", servers.update),
              ("/{server_id}", "DELETE", servers.delete),
              ("/{server_id}/action", "POST", server_actions.action))]
