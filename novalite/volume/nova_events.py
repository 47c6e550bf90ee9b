"""Telling compute that an attached volume grew (Cinder's nova.extend_volume): Nova's
`volume-extended` event (compute API 2.51) for each server the volume is attached to,
posted to os-server-external-events with the [nova] client options, whose compute then
grows the disk its guest sees."""

from __future__ import annotations

import logging

from novalite.clients import adapters

LOG = logging.getLogger(__name__)
GROUP = "nova"
MICROVERSION = "2.51"


def volume_extended(server_uuids: list[str], volume_id: str) -> bool:
    """Whether compute took the events (a server gone meanwhile does not count)."""
    events = [{"name": "volume-extended", "server_uuid": uuid, "tag": volume_id}
              for uuid in server_uuids]
    try:
        response = adapters.adapter(GROUP).post(
            "/os-server-external-events", json={"events": events}, raise_exc=False,
            microversion=MICROVERSION)
    except Exception:  # compute away: the guests see the new size at their next start
        LOG.warning("Could not tell compute that volume %s grew", volume_id, exc_info=True)
        return False
    if response.status_code not in (200, 207, 404):
        LOG.warning("Compute refused the volume-extended events of volume %s: %s",
                    volume_id, response.text[:200])
        return False
    return True
