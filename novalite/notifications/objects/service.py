"""ServiceStatusPayload: service.update, on a service's start and on every change the
os-services API makes (enable, disable, force down)."""

from __future__ import annotations

import datetime

from novalite.notifications.objects.base import Payload, payload
from novalite.objects.service import Service

# Nova's service version counts RPC and object changes across a deployment; novalite
# versions each RPC API and object on its own and has no such counter.
SERVICE_VERSION = 0


@payload
class ServiceStatusPayload(Payload):
    NAME = "ServiceStatusPayload"
    VERSION = "1.1"  # 1.1: uuid

    host: str | None
    binary: str | None
    topic: str | None
    report_count: int
    disabled: bool
    disabled_reason: str | None
    availability_zone: str | None
    last_seen_up: datetime.datetime | None
    forced_down: bool
    version: int
    uuid: str

    @classmethod
    def from_service(cls, service: Service) -> ServiceStatusPayload:
        """The zone is null, as in Nova's samples: a service record has none of its own
        (a compute's comes from its aggregates)."""
        return cls(host=service.host, binary=service.binary, topic=service.topic,
                   report_count=service.report_count, disabled=service.disabled,
                   disabled_reason=service.disabled_reason, availability_zone=None,
                   last_seen_up=service.last_seen_up, forced_down=service.forced_down,
                   version=SERVICE_VERSION, uuid=service.uuid)
