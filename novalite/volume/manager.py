"""The volume manager (Cinder's cinder-volume): the RPC endpoint that owns one backend's
volumes. It places a new volume on its backend if it fits, creates and deletes the data,
and sets each volume's final status; a failure is the volume's `error` status plus a user
message saying why. At start it moves what a killed predecessor left half-done to an
error status (Cinder's init_host), so no volume stays `creating` or `deleting` forever."""

from __future__ import annotations

import logging
from collections.abc import Callable

from sqlalchemy.orm import Session

from novalite.conf import CONF
from novalite.context import RequestContext
from novalite.db import session
from novalite.rpc import Target
from novalite.service.manager import Manager
from novalite.volume import backend, capacity, errors, messages, states, volumes
from novalite.volume.backend import FileBackend

LOG = logging.getLogger(__name__)


class VolumeManager(Manager):
    target = Target(version="1.0")

    def __init__(self, host: str) -> None:
        super().__init__(host)
        name = CONF.volume_backend_name
        self.backend_host = f"{host}@{name}#{name}"
        self.backend = FileBackend(backend.volumes_dir())

    def init_host(self) -> None:
        self.backend.setup()
        with session.writer() as s:
            for row in volumes.on_host(s, self.backend_host, states.INTERRUPTED):
                LOG.warning("Volume %s was left %s by a stopped volume service: now %s",
                            row.id, row.status, states.INTERRUPTED[row.status])
                row.status = states.INTERRUPTED[row.status]

    def create_volume(self, ctx: RequestContext, volume_id: str) -> None:
        with session.writer() as s:
            row = volumes.get_row(s, volume_id, None)
            size, project_id = row.size, row.project_id
            if not capacity.of_backend(volumes.allocated_gb(s, self.backend_host)).fits(size):
                self._fail(s, ctx, row.id, project_id, messages.SCHEDULE_ALLOCATE_VOLUME,
                           messages.NO_BACKEND_AVAILABLE)
                LOG.info("No valid backend was found for volume %s of %d GB", volume_id, size)
                return
            row.host = self.backend_host
        self._run(ctx, volume_id, project_id, lambda: self.backend.create(volume_id, size),
                  messages.DRIVER_FAILED_CREATE)

    def delete_volume(self, ctx: RequestContext, volume_id: str) -> None:
        try:
            self.backend.delete(volume_id)
        except OSError:
            LOG.exception("Could not delete the data of volume %s", volume_id)
            with session.writer() as s:
                volumes.swap_status(s, volume_id, [states.DELETING],
                                    {"status": states.ERROR_DELETING})
            return
        with session.writer() as s:
            volumes.remove(s, volume_id)

    def _run(self, ctx: RequestContext, volume_id: str, project_id: str,
             work: Callable[[], None], detail_id: str) -> None:
        """`work` on the backend, then `available`; a failure is `error` with a message."""
        try:
            work()
        except (errors.BackendError, OSError) as exc:
            LOG.error("Volume %s failed on its backend: %s", volume_id, exc)
            with session.writer() as s:
                self._fail(s, ctx, volume_id, project_id,
                           messages.CREATE_VOLUME_FROM_BACKEND, detail_id)
            return
        with session.writer() as s:
            if not volumes.swap_status(s, volume_id, [states.CREATING],
                                       {"status": states.AVAILABLE}):
                LOG.info("Volume %s changed while it was created: left as it is", volume_id)

    def _fail(self, s: Session, ctx: RequestContext, volume_id: str, project_id: str,
              action_id: str, detail_id: str) -> None:
        volumes.swap_status(s, volume_id, [states.CREATING], {"status": states.ERROR})
        messages.create(s, project_id, ctx.request_id, volume_id, action_id, detail_id)
