"""The message oslo.messaging's notifiers put on the wire, so its notification listeners
(and anything reading Nova's notifications) take ours unchanged.

The message: message_id, publisher_id, event_type, priority, payload, timestamp (as
oslo.messaging writes it: `str()` of a naive UTC datetime), plus oslo.messaging's
`_unique_id` (its listeners drop a redelivered duplicate by it) and the request context
as `_context_<field>` keys, which a listener hands its endpoints as `ctxt`. The auth token
is never among them. The `messagingv2` driver wraps that in the 2.0 envelope:

    {"oslo.version": "2.0", "oslo.message": "<the message as a JSON string>"}
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from novalite.context import RequestContext
from novalite.timeutils import utcnow

VERSION_KEY, MESSAGE_KEY, VERSION = "oslo.version", "oslo.message", "2.0"


def message(ctx: RequestContext | None, publisher_id: str, event_type: str, priority: str,
            payload: dict[str, Any]) -> dict[str, Any]:
    body: dict[str, Any] = {
        "message_id": str(uuid.uuid4()), "publisher_id": publisher_id,
        "event_type": event_type, "priority": priority, "payload": payload,
        "timestamp": str(utcnow()), "_unique_id": uuid.uuid4().hex,
    }
    if ctx is not None:
        body.update((f"_context_{key}", value) for key, value in ctx.to_dict().items())
    return body


def wrap(body: dict[str, Any]) -> dict[str, Any]:
    return {VERSION_KEY: VERSION, MESSAGE_KEY: json.dumps(body)}


def unwrap(wire: dict[str, Any]) -> dict[str, Any]:
    """The message inside an envelope (a message without one is returned as it is), as
    oslo.messaging's listeners read both."""
    if VERSION_KEY in wire:
        return dict(json.loads(wire[MESSAGE_KEY]))
    return wire
