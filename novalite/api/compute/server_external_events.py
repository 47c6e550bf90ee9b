"""`POST /os-server-external-events`: what the network service tells compute (Nova's
os-server-external-events, admin/service only). `network-changed` and
`network-vif-deleted` refresh the server's cached network info; `network-vif-plugged`
and `-unplugged` are acknowledged (the fake driver plugs at once and waits for none).
Each event answers its own code: 200 done, 404 no such server, 422 not accepted; the
response is 200 when all were done, 207 when some were not, 404 when none was."""

from __future__ import annotations

from typing import Any

from novalite import exception
from novalite.api import policy
from novalite.api.faults import HTTPFault
from novalite.api.request import ApiRequest, ApiResponse
from novalite.compute.api import API
from novalite.db.api import instances

NAMES = ("network-changed", "network-vif-plugged", "network-vif-unplugged",
         "network-vif-deleted")
REFRESHING = ("network-changed", "network-vif-deleted")


def _events(body: Any) -> list[dict[str, Any]]:
    events = body.get("events") if isinstance(body, dict) else None
    if not isinstance(events, list) or not events or not all(
            isinstance(e, dict) and isinstance(e.get("name"), str)
            and isinstance(e.get("server_uuid"), str) for e in events):
        raise HTTPFault(400, "Invalid input for field/attribute events.")
    for event in events:
        if event["name"] not in NAMES:
            raise HTTPFault(400, f"Invalid input for field/attribute name. Value: "
                                 f"{event['name']}.")
    return events


def create(req: ApiRequest) -> ApiResponse:
    policy.authorize(req.ctx, "os_compute_api:os-server-external-events:create")
    events = _events(req.body)
    refreshed: set[str] = set()
    answered = []
    for event in events:
        result = {**event, "status": event.get("status", "completed"), "code": 200}
        try:
            instance = instances.instance_get(event["server_uuid"])
        except exception.InstanceNotFound:
            result.update(status="failed", code=404)
        else:
            if event["name"] in REFRESHING and instance.uuid not in refreshed:
                API().refresh_network_info(req.ctx, instance)
                refreshed.add(instance.uuid)
        answered.append(result)
    codes = {e["code"] for e in answered}
    status = 200 if codes == {200} else 404 if 200 not in codes else 207
    return ApiResponse(status, {"events": answered})
