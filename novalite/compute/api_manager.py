"""The API service's start: it sends on the builds its predecessor on this host saved
but did not live to send (novalite.db.api.build_outbox), as a restarted service picks up
where the one before it stopped. Without this, such a server stays in BUILD until the
conductors' build watchdog ends it in ERROR. Where messages die with the process (the
all-in-one's in-process transport), it also sends again the builds its conductor had
taken and no compute had yet: the conductor resumes each from where it stood
(novalite.conductor.tasks.build_resume)."""

from __future__ import annotations

import logging

from novalite.conductor.rpcapi import ComputeTaskAPI
from novalite.conf import CONF
from novalite.context import RequestContext
from novalite.db.api import actions, build_outbox, request_specs
from novalite.rpc.errors import MessagingError
from novalite.rpc.transport import get_transport
from novalite.service.manager import Manager
from novalite.timeutils import utcnow

LOG = logging.getLogger(__name__)


class ApiManager(Manager):
    def init_host(self) -> None:
        started = utcnow()
        requests = build_outbox.unsent(self.host, started)
        if not get_transport(CONF.transport_url).keeps_messages:
            requests += build_outbox.in_flight(started)
        for uuids in requests:
            try:
                _send(uuids)
            except MessagingError as exc:  # kept for the next start (or the watchdog)
                LOG.error("Could not send on the saved builds of %s: %s", uuids, exc)
                return


def _send(uuids: list[str]) -> None:
    """The builds of one request, in its requester's name and under its request id (the
    conductor records its events on the request's "create" action)."""
    create = next(action for action in actions.actions_get(uuids[0])
                  if action["action"] == "create")
    ctx = RequestContext(user_id=create["user_id"], project_id=create["project_id"],
                         request_id=create["request_id"])
    LOG.warning("Sending on the builds of %s, which a stopped API saved but did not send",
                uuids)
    ComputeTaskAPI().schedule_and_build_instances(
        ctx, request_specs.request_spec_get(uuids[0]), uuids)
