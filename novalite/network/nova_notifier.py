"""Telling compute what changed under its servers, as Neutron's Nova notifier does: a
`network-changed` event (a floating IP associated or released, a port's addresses or
groups changed) or `network-vif-deleted`, posted to the compute API's
os-server-external-events with the [nova] client options, so that compute refreshes the
network info it caches. Events are queued when their transaction commits and sent by
one thread in batches, never on the request's path."""

from __future__ import annotations

import logging
import queue
import threading
from typing import Any

from sqlalchemy.orm import Session

from novalite.clients import adapters

LOG = logging.getLogger(__name__)
GROUP = "nova"
_queue: queue.Queue[dict[str, str]] = queue.Queue()
_sender: threading.Thread | None = None
_lock = threading.Lock()


def record(s: Session, port: Any, name: str = "network-changed") -> None:
    """Note an event for the server of `port` (a compute's port), sent on commit."""
    if port is not None and port.device_owner.startswith("compute:") and port.device_id:
        s.info.setdefault("nova_events", []).append(
            {"name": name, "server_uuid": port.device_id, "tag": port.id})


def send(events: list[dict[str, str]]) -> None:
    if not events:
        return
    global _sender
    with _lock:
        if _sender is None or not _sender.is_alive():
            _sender = threading.Thread(target=_run, name="nova-notifier", daemon=True)
            _sender.start()
    for event in events:
        _queue.put(event)


def _run() -> None:
    while True:
        batch = [_queue.get()]
        while not _queue.empty() and len(batch) < 100:
            batch.append(_queue.get_nowait())
        unique = list({(e["name"], e["server_uuid"], e["tag"]): e for e in batch}.values())
        try:
            response = adapters.adapter(GROUP).post(
                "/os-server-external-events", json={"events": unique}, raise_exc=False,
                microversion="2.1")
            if response.status_code >= 400 and response.status_code != 404:
                LOG.warning("Compute refused %d network events: %s", len(unique),
                            response.text[:200])
        except Exception:  # compute away: its periodic refresh catches up
            LOG.warning("Could not send %d network events to compute", len(unique),
                        exc_info=True)
