"""`POST /os-server-external-events`: what the network service tells compute (Nova's
os-server-external-events, admin/service only). `network-changed` and
`network-vif-deleted` refresh the server's cached network info; `network-vif-plugged`
and `-unplugged` are acknowledged (a real guest's compute waits for the network
service's answer to its own report that it wired the ports, not for this event);
from 2.51 `volume-extended` (tag: the volume's id) has the server's compute show the
guest its grown volume; from 2.76 `power-update` (tag POWER_ON or POWER_OFF) is a start
or stop action its compute carries out through the driver, as Nova's.
Each event answers its own code: 200 done, 404 no such server, 422 not accepted; the
response is 200 when all were done, 207 when some were not, 404 when none was."""

from __future__ import annotations

import logging
from typing import Any

from novalite import exception
from novalite.api import policy
from novalite.api.faults import HTTPFault
from novalite.api.request import ApiRequest, ApiResponse
from novalite.compute.api import API
from novalite.db.api import instances
from novalite.objects import states
from novalite.objects.instance import Instance

LOG = logging.getLogger(__name__)

NAMES = ("network-changed", "network-vif-plugged", "network-vif-unplugged",
         "network-vif-deleted")
REFRESHING = ("network-changed", "network-vif-deleted")
POWER_UPDATE = "power-update"  # 2.76
POWER_TAGS = (states.POWER_ON_TAG, states.POWER_OFF_TAG)
VOLUME_EXTENDED = "volume-extended"  # 2.51


def _names(req: ApiRequest) -> tuple[str, ...]:
    return (*NAMES, *((VOLUME_EXTENDED,) if req.at_least("2.51") else ()),
            *((POWER_UPDATE,) if req.at_least("2.76") else ()))


def _volume_extended(req: ApiRequest, instance: Instance, event: dict[str, Any]) -> int:
    """The event's code: 400 without the volume's id as its tag, 422 for a server on no
    host or a compute too old for it."""
    if not event.get("tag"):
        return 400
    if not instance.host or not API().compute.client.can_send_version("1.24"):
        return 422
    API().extend_volume(req.ctx, instance, event["tag"])
    return 200


def _power_update(req: ApiRequest, instance: Instance, event: dict[str, Any]) -> int:
    """The event's code: 400 without a tag (Nova needs one to know which way), 422 for a
    server on no host, or a compute too old for it; an unknown tag is skipped, as Nova
    skips it, with the event accepted."""
    tag = event.get("tag")
    if not tag:
        return 400
    if not instance.host or not API().compute.client.can_send_version("1.9"):
        return 422
    if tag in POWER_TAGS:
        API().power_update(req.ctx, instance, tag)
    else:
        LOG.warning("Invalid power state %s in a power-update event for %s; skipped",
                    tag, instance.uuid)
    return 200


_HANDLERS = {POWER_UPDATE: _power_update, VOLUME_EXTENDED: _volume_extended}


def _events(req: ApiRequest) -> list[dict[str, Any]]:
    body = req.body
    events = body.get("events") if isinstance(body, dict) else None
    if not isinstance(events, list) or not events or not all(
            isinstance(e, dict) and isinstance(e.get("name"), str)
            and isinstance(e.get("server_uuid"), str) for e in events):
        raise HTTPFault(400, "Invalid input for field/attribute events.")
    for event in events:
        if event["name"] not in _names(req):
            raise HTTPFault(400, f"Invalid input for field/attribute name. Value: "
                                 f"{event['name']}.")
    return events


def create(req: ApiRequest) -> ApiResponse:
    policy.authorize(req.ctx, "os_compute_api:os-server-external-events:create")
    events = _events(req)
    refreshed: set[str] = set()
    answered = []
    for event in events:
        result = {**event, "status": event.get("status", "completed"), "code": 200}
        try:
            instance = instances.instance_get(event["server_uuid"])
        except exception.InstanceNotFound:
            result.update(status="failed", code=404)
        else:
            if event["name"] in _HANDLERS:
                result["code"] = _HANDLERS[event["name"]](req, instance, event)
                if result["code"] != 200:
                    result["status"] = "failed"
            elif event["name"] in REFRESHING and instance.uuid not in refreshed:
                API().refresh_network_info(req.ctx, instance)
                refreshed.add(instance.uuid)
        answered.append(result)
    codes = {e["code"] for e in answered}
    status = 200 if codes == {200} else 404 if 200 not in codes else 207
    return ApiResponse(status, {"events": answered})
