"""The volume manager (Cinder's cinder-volume): the RPC endpoint that owns one backend's
volumes and snapshots. It places a new volume on its backend if it fits, creates
(empty, or as a copy of a snapshot, another volume or an image's data fetched from the
image service over HTTP, as Cinder's does), snapshots, extends and deletes the
data, and sets each resource's final status; a failure is an error status plus a user
message saying why. It exports a volume to its attachments' consumers over NBD
(exports.py: one export per volume, which all the servers of a multiattach volume
share) and stops the export when the last attachment goes. At start it moves what a
killed predecessor left half-done to an error status (Cinder's init_host), so nothing
stays `creating` or `deleting` forever, and recovers the attachments (see
_recover_attachments)."""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Callable
from typing import Any

from novalite.clients import glance
from novalite.context import RequestContext
from novalite.db import session
from novalite.db.session import Unit
from novalite.exception import NovaliteException
from novalite.locks import KeyedLocks
from novalite.rpc import Target
from novalite.service.manager import Manager
from novalite.timeutils import utcnow
from novalite.volume import (
    attachments,
    backend,
    capacity,
    errors,
    messages,
    nova_events,
    snapshots,
    states,
    volumes,
)
from novalite.volume.backend import FileBackend
from novalite.volume.exports import Export, Exports
from novalite.volume.records import Volume

LOG = logging.getLogger(__name__)


class VolumeManager(Manager):
    target = Target(version="1.2")

    def __init__(self, host: str) -> None:
        super().__init__(host)
        self.backend_host = capacity.pool_name(host)
        self.backend = FileBackend(backend.volumes_dir())
        self.exports = Exports(host)
        self._volume_locks = KeyedLocks()

    def init_host(self) -> None:
        self.backend.setup()
        with session.writer() as s:
            for row in volumes.on_host(s, self.backend_host, states.INTERRUPTED):
                LOG.warning("Volume %s was left %s by a stopped volume service: now %s",
                            row.id, row.status, states.INTERRUPTED[row.status])
                row.status = states.INTERRUPTED[row.status]
            for snap in snapshots.interrupted_on(s, self.backend_host):
                LOG.warning("Snapshot %s was left %s by a stopped volume service: now %s",
                            snap.id, snap.status, snapshots.INTERRUPTED[snap.status])
                snap.status = snapshots.INTERRUPTED[snap.status]
        self._recover_attachments()

    def _recover_attachments(self) -> None:
        """The attachments of this backend's volumes as a stopped predecessor left them:
        one it was deleting (`detaching`) is finished, its export stopped; the export of
        one that was connected is started again where its consumer connects (same port),
        if it stopped; an export whose attachment is gone is stopped; and each volume
        takes the status its attachments make (Cinder's rule: a volume left
        `detaching` by a detach that never came is `in-use` again). A reservation
        without a connection is its consumer's to update or delete (Nova's compute
        does either when it starts)."""
        with session.reader() as s:
            found = [(row.id, row.volume_id, row.attach_status, row.connection_info)
                     for row in attachments.on_backend(s, self.backend_host)]
        kept = set()
        serving = {_export_of(connection) for attachment_id, _, _, connection in found
                   if connection and self.exports.running(attachment_id)}
        for attachment_id, volume_id, status, connection in found:
            try:
                if status == attachments.DETACHING:
                    self.attachment_delete(None, attachment_id)
                    with session.writer() as s:
                        attachments.remove(s, attachment_id)
                    continue
                kept.add(attachment_id)
                if connection and _export_of(connection) not in serving:
                    serving.add(_export_of(connection))
                    self._export(attachment_id, volume_id, connection)
            except (errors.BackendError, OSError) as exc:
                LOG.error("Attachment %s of volume %s could not be recovered: %s",
                          attachment_id, volume_id, exc)
        for gone in set(self.exports.known()) - kept:
            self.exports.stop(gone)
        with session.writer() as s:
            for row in volumes.on_host(s, self.backend_host, states.FOLLOW_ATTACHMENTS):
                attachments.settle(s, row.id)

    def attachment_update(self, ctx: RequestContext, volume_id: str, attachment_id: str,
                          connector: dict[str, Any]) -> dict[str, Any]:
        """Export the volume to `connector` and record the connection: attachment and
        volume `attaching`. The connection info, as a Cinder driver's
        initialize_connection gives it. Asked again for an attachment it serves (a
        consumer retrying), the running export is the answer. The volume's other
        attachments (other servers' of a multiattach volume; its consumer's own, a live
        migration's destination attached beside its source) share the one export: a
        qcow2 has one writer, one qemu-nbd. Per volume, one request at a time decides
        whether to start it."""
        with self._volume_locks(volume_id):
            with session.core_reader() as s:
                volume = volumes.get(s, volume_id, None)
            this, others = attachments.split(volume.attachments, attachment_id)
            mode = this.attach_mode if this.attach_mode != "null" else connector.get(
                "mode") or "rw"
            served = next((other.connection_info for other in [this, *others]
                           if other.connection_info and self.exports.running(other.id)),
                          None)
            data = {key: value for key, value in (served or {}).items()
                    if key not in ("driver_volume_type", "attachment_id")}
            if not data:
                export = self._start(attachment_id, volume, mode == "ro")
                data = {"host": export.host, "port": export.port, "export": export.name,
                        "name": volume_id, "volume_id": volume_id, "access_mode": mode}
            elif volume.multiattach:  # each of its servers' own mode, on a writable export
                data["access_mode"] = mode
            self._connected(attachment_id, volume_id, connector, mode, data)
        return {"driver_volume_type": "nbd", "data": data}

    def _connected(self, attachment_id: str, volume_id: str, connector: dict[str, Any],
                   mode: str, data: dict[str, Any]) -> None:
        """The attachment `attaching` with its connection; one deleted while it was being
        exported stops the export it started."""
        try:
            with session.core_writer() as s:
                attachments.change(s, attachment_id, {
                    "connector": connector,
                    "connection_info": {"driver_volume_type": "nbd", **data,
                                        "attachment_id": attachment_id},
                    "attach_status": attachments.ATTACHING,
                    "attached_host": connector.get("host"),
                    "mountpoint": connector.get("mountpoint"), "attach_mode": mode,
                    "attach_time": utcnow()})
                attachments.settle(s, volume_id)
        except errors.VolumeAttachmentNotFound:
            self.exports.stop(attachment_id)
            raise

    def _start(self, attachment_id: str, volume: Volume, read_only: bool,
               port: int | None = None) -> Export:
        """The volume's export, named for `attachment_id`: read-only for an `ro`
        attachment of a volume no other attachment may write to, to every client of a
        multiattach volume (an `ro` attachment of it reads through a client of its
        own that QEMU opens read-only)."""
        return self.exports.start(attachment_id, self.backend.path(volume.id), volume.id,
                                  read_only and not volume.multiattach, port,
                                  shared=volume.multiattach)

    def attachment_delete(self, ctx: RequestContext | None, attachment_id: str) -> None:
        """Stop the attachment's export (the API then removes the attachment), unless
        another attachment of the volume shares it: that one keeps it."""
        with session.core_reader() as s:
            volume_id = attachments.get(s, attachment_id, None).volume_id
        with self._volume_locks(volume_id):
            with session.core_reader() as s:
                this, others = attachments.split(attachments.of_volume(s, volume_id),
                                                 attachment_id)
            sharing = [other.id for other in others
                       if other.connection_info and _export_of(other.connection_info)
                       == _export_of(this.connection_info or {})]
            if sharing:
                self.exports.hand_over(attachment_id, sharing[0])
            else:
                self.exports.stop(attachment_id)

    def _capacity(self, s: Unit) -> capacity.Capacity:
        return capacity.of_pool(s, self.backend_host)

    def create_volume(self, ctx: RequestContext, volume_id: str) -> None:
        with session.core_writer() as s:
            volume = volumes.get(s, volume_id, None)
            if not self._capacity(s).fits(volume.size):
                self._fail(s, ctx, volume, messages.SCHEDULE_ALLOCATE_VOLUME,
                           messages.NO_BACKEND_AVAILABLE)
                LOG.info("No valid backend was found for volume %s of %d GB", volume_id,
                         volume.size)
                return
            volumes.place(s, volume_id, self.backend_host)
        action = (messages.COPY_IMAGE_TO_VOLUME if volume.image_id
                  else messages.CREATE_VOLUME_FROM_BACKEND)
        self._run(ctx, volume, self._maker(ctx, volume), action,
                  messages.DRIVER_FAILED_CREATE)

    def _maker(self, ctx: RequestContext, volume: Volume) -> Callable[[], None]:
        if volume.image_id:
            return lambda: self._from_image(ctx, volume, volume.image_id or "")
        if volume.snapshot_id:
            source = self.backend.snapshot_path(volume.snapshot_id)
        elif volume.source_volid:
            source = self.backend.path(volume.source_volid)
        else:
            return lambda: self.backend.create(volume.id, volume.size)
        return lambda: self.backend.copy(source, volume.id, volume.size)

    def _from_image(self, ctx: RequestContext, volume: Volume, image_id: str) -> None:
        """The image's data, downloaded beside the volume, converted into it."""
        image = glance.show(ctx, image_id)
        staged = self.backend.image_path(volume.id)
        try:
            glance.download(ctx, image, staged)
            self.backend.copy(staged, volume.id, volume.size, image["disk_format"])
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.remove(staged)

    def copy_volume_to_image(self, ctx: RequestContext, volume_id: str, image_id: str,
                             disk_format: str, container_format: str) -> None:
        """The volume's data converted beside it, then sent into the queued image; the
        volume then takes the status its attachments make. A failure leaves a message
        and deletes the image (Cinder's), never the volume's data."""
        staged = self.backend.image_path(volume_id)
        try:
            self.backend.export(volume_id, staged, disk_format)
            with open(staged, "rb") as data:
                glance.upload(ctx, image_id, iter(lambda: data.read(glance.CHUNK), b""),
                              disk_format, container_format)
        except (OSError, NovaliteException) as exc:
            LOG.error("Volume %s could not be uploaded to image %s: %s", volume_id,
                      image_id, exc)
            with contextlib.suppress(NovaliteException):
                glance.delete(ctx, image_id)
            with session.writer() as s:
                volume = volumes.get(s, volume_id, None)
                messages.create(s, volume.project_id, ctx.request_id, volume_id,
                                messages.COPY_VOLUME_TO_IMAGE,
                                messages.FAILED_TO_UPLOAD_VOLUME)
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.remove(staged)
        with session.writer() as s:
            attachments.settle(s, volume_id)

    def delete_volume(self, ctx: RequestContext, volume_id: str) -> None:
        try:
            self.backend.delete(volume_id)
        except OSError:
            LOG.exception("Could not delete the data of volume %s", volume_id)
            with session.core_writer() as s:
                volumes.swap_status(s, volume_id, [states.DELETING],
                                    {"status": states.ERROR_DELETING})
            return
        with session.core_writer() as s:
            volumes.remove(s, volume_id)

    def extend_volume(self, ctx: RequestContext, volume_id: str, new_size: int) -> None:
        """The volume's file grown; an attached volume's exports are stopped for it
        (qemu-nbd holds the file's lock and serves a fixed size) and started again on
        their ports, where the guests' NBD clients reconnect, and its servers' computes
        are told (Nova's volume-extended event) to grow the disks the guests see. The
        volume then takes the status its attachments make."""
        with session.writer() as s:
            volume = volumes.get(s, volume_id, None)
            if not self._capacity(s).fits(new_size - volume.size):
                attachments.settle(s, volume_id)
                messages.create(s, volume.project_id, ctx.request_id, volume_id,
                                messages.EXTEND_VOLUME, messages.NO_BACKEND_AVAILABLE)
                return
            connected = [(a.id, a.instance_uuid, a.connection_info)
                         for a in volume.attachments if a.connection_info]
        exported = [a for a in connected if self.exports.running(a[0])]
        try:
            for attachment_id, _, _ in exported:
                self.exports.stop(attachment_id)
            self.backend.extend(volume_id, new_size)
        except (errors.BackendError, OSError) as exc:
            LOG.error("Volume %s could not be extended: %s", volume_id, exc)
            with session.writer() as s:
                volumes.swap_status(s, volume_id, [states.EXTENDING],
                                    {"status": states.ERROR_EXTENDING})
                messages.create(s, volume.project_id, ctx.request_id, volume_id,
                                messages.EXTEND_VOLUME, messages.DRIVER_FAILED_EXTEND)
            return
        finally:
            for attachment_id, _, connection in exported:
                self._export(attachment_id, volume_id, connection)
        with session.writer() as s:
            volumes.get_row(s, volume_id, None).size = new_size
            attachments.settle(s, volume_id)
        servers = sorted({uuid for _, uuid, _ in connected if uuid})
        if servers and not nova_events.volume_extended(servers, volume_id):
            with session.writer() as s:
                messages.create(s, volume.project_id, ctx.request_id, volume_id,
                                messages.EXTEND_VOLUME,
                                messages.NOTIFY_COMPUTE_SERVICE_FAILED)

    def _export(self, attachment_id: str, volume_id: str, connection: dict[str, Any]
                ) -> None:
        """The attachment's export (again) where its consumer connects: same port."""
        with session.reader() as s:
            volume = volumes.get(s, volume_id, None)
        self._start(attachment_id, volume, connection["access_mode"] == "ro",
                    connection["port"])

    def create_snapshot(self, ctx: RequestContext, snapshot_id: str) -> None:
        with session.reader() as s:
            snapshot = snapshots.record(snapshots.get_row(s, snapshot_id, None))
        try:
            self.backend.snapshot(snapshot.volume_id, snapshot_id)
        except (errors.BackendError, OSError) as exc:
            LOG.error("Snapshot %s failed on its backend: %s", snapshot_id, exc)
            status = snapshots.ERROR
        else:
            status = snapshots.AVAILABLE
        with session.writer() as s:
            snapshots.swap_status(s, snapshot_id, [snapshots.CREATING], {"status": status})
            if status == snapshots.ERROR:
                messages.create(s, snapshot.project_id, ctx.request_id, snapshot_id,
                                messages.SNAPSHOT_CREATE, messages.SNAPSHOT_CREATE_ERROR,
                                messages.RESOURCE_SNAPSHOT)

    def delete_snapshot(self, ctx: RequestContext, snapshot_id: str) -> None:
        try:
            self.backend.delete_snapshot(snapshot_id)
        except OSError:
            LOG.exception("Could not delete the data of snapshot %s", snapshot_id)
            with session.writer() as s:
                snapshots.swap_status(s, snapshot_id, [snapshots.DELETING],
                                      {"status": snapshots.ERROR_DELETING})
            return
        with session.writer() as s:
            s.delete(snapshots.get_row(s, snapshot_id, None))

    def _run(self, ctx: RequestContext, volume: Volume, work: Callable[[], None],
             action_id: str, detail_id: str) -> None:
        """`work` on the backend, then `available`; a failure is `error` with a message."""
        try:
            work()
        except (OSError, NovaliteException) as exc:  # the backend's, the image service's
            LOG.error("Volume %s failed on its backend: %s", volume.id, exc)
            if isinstance(exc, errors.ImageTooLarge):
                detail_id = messages.NOT_ENOUGH_SPACE_FOR_IMAGE
            with session.core_writer() as s:
                self._fail(s, ctx, volume, action_id, detail_id)
            return
        with session.core_writer() as s:
            if not volumes.swap_status(s, volume.id, [states.CREATING],
                                       {"status": states.AVAILABLE}):
                LOG.info("Volume %s changed while it was created: left as it is", volume.id)

    def _fail(self, s: Unit, ctx: RequestContext, volume: Volume, action_id: str,
              detail_id: str) -> None:
        volumes.swap_status(s, volume.id, [states.CREATING], {"status": states.ERROR})
        messages.create(s, volume.project_id, ctx.request_id, volume.id, action_id, detail_id)


def _export_of(connection: dict[str, Any]) -> tuple[Any, Any]:
    """Where an attachment's consumer reads the volume (attachments sharing an export
    read it at the same place)."""
    return connection.get("host"), connection.get("port")
