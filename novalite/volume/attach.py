"""What attaching and detaching ask of the volume service beyond HTTP (Cinder's
attachment_* and begin/roll_detaching in cinder/volume/api.py): the checks on the
volume's status, the attachment records, and the volume manager's export of the volume
to the consumer's connector, made and stopped over RPC while the caller waits.

A request that fails leaves the volume as it found it: an attachment made for a connector
the manager could not serve is removed again, so no volume stays `reserved` for a
consumer that was told no. The caller's project scopes every lookup (None: an admin's
view of all)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from novalite.context import RequestContext
from novalite.db import session
from novalite.exception import NovaliteException
from novalite.rpc.errors import MessagingError
from novalite.volume import attachments, errors, states, volumes
from novalite.volume.records import Attachment
from novalite.volume.rpcapi import VolumeAPI

LOG = logging.getLogger(__name__)

# Cinder's statuses a volume may be reserved from (novalite has no `downloading`; the
# text stays Cinder's): a multiattach volume in use too
_RESERVABLE = {False: (states.AVAILABLE,), True: (states.AVAILABLE, states.IN_USE)}
_RESERVABLE_TEXT = {False: "available or downloading",
                    True: "available or in-use or downloading"}


def _in_error(volume_id: str, status: str, verb: str) -> str:
    return (f"Volume attachments can not be {verb} if the volume is in an error state. "
            f"The Volume {volume_id} currently has a status of: {status} ")


def create(ctx: RequestContext, project_id: str | None, volume_id: str,
           instance_uuid: str | None, connector: dict[str, Any] | None,
           mode: str, authorize: Callable[[str], None]) -> Attachment:
    """Reserve the volume for `instance_uuid` (`reserved`); with a connector, connect it
    at once (`attaching`). A second attachment of an attached volume is refused unless
    the volume is multiattach (a bootable one in use needs the caller `authorize`d for
    Cinder's volume:multiattach_bootable_volume), or one of its attachments is the same
    instance's (Cinder's override: the instance's compute hands the volume over to the
    next host it is built or moved on, so the volume is never free in between)."""
    with session.core_writer() as s:
        volume = volumes.get(s, volume_id, project_id)
        if "error" in volume.status:
            raise errors.InvalidVolume(reason=_in_error(volume_id, volume.status, "created"))
        if volume.multiattach and volume.status == states.IN_USE and volume.bootable:
            authorize("volume:multiattach_bootable_volume")
        if not volumes.swap_status(s, volume_id, _RESERVABLE[volume.multiattach],
                                   {"status": states.RESERVED}):
            held = volume.attachments
            if not (instance_uuid and any(a.instance_uuid == instance_uuid for a in held)):
                raise errors.InvalidVolume(reason=(
                    f"Volume {volume_id} status must be "
                    f"{_RESERVABLE_TEXT[volume.multiattach]} to reserve, but the current "
                    f"status is {volume.status}."))
        attachment_id = attachments.create(s, volume_id, instance_uuid, mode)
        attachments.settle(s, volume_id)
    if connector is None:
        return get(project_id, attachment_id)
    try:
        return update(ctx, project_id, attachment_id, connector)
    except Exception:
        _forget(attachment_id)
        raise


def get(project_id: str | None, attachment_id: str) -> Attachment:
    with session.core_reader() as s:
        return attachments.get(s, attachment_id, project_id)


def update(ctx: RequestContext, project_id: str | None, attachment_id: str,
           connector: dict[str, Any]) -> Attachment:
    """Have the volume's manager export it to `connector`; the attachment, `attaching`
    with the connection it made."""
    with session.core_reader() as s:
        attachment = attachments.get(s, attachment_id, project_id)
        volume = volumes.get(s, attachment.volume_id, None)
    if "error" in volume.status:
        raise errors.ResourceConflict(reason=_in_error(volume.id, volume.status, "updated"))
    assert volume.host is not None  # a reservable volume was placed on a backend
    try:
        VolumeAPI().attachment_update(ctx, volume.host, volume.id, attachment_id,
                                      connector)
    except (MessagingError, NovaliteException) as exc:
        LOG.error("The volume manager could not connect attachment %s: %s",
                  attachment_id, exc)
        raise errors.AttachmentFailed(reason=str(exc)) from exc
    return get(project_id, attachment_id)


def complete(project_id: str | None, attachment_id: str) -> None:
    """The consumer uses the volume now: the attachment is `attached`, the volume
    `in-use`."""
    with session.core_writer() as s:
        volume_id = attachments.get(s, attachment_id, project_id).volume_id
        attachments.change(s, attachment_id, {"attach_status": attachments.ATTACHED})
        attachments.settle(s, volume_id)


def delete(ctx: RequestContext, project_id: str | None, attachment_id: str
           ) -> list[Attachment]:
    """Detach: `detaching` while the manager stops the export, then the attachment is
    gone and the volume takes the status of those left (`available` when none). A user
    may not delete what a server uses (only the compute service, an admin, may);
    the volume's remaining attachments are returned."""
    with session.core_writer() as s:
        found = attachments.get(s, attachment_id, project_id)
        if not ctx.is_admin and found.instance_uuid and found.connection_info:
            raise errors.ConflictNovaUsingAttachment(instance_id=found.instance_uuid)
        volume_id, connected = found.volume_id, bool(found.connection_info)
        attachments.change(s, attachment_id, {"attach_status": attachments.DETACHING})
        attachments.settle(s, volume_id)
        host = volumes.get(s, volume_id, None).host
    if connected and host is not None:
        try:
            VolumeAPI().attachment_delete(ctx, host, attachment_id)
        except MessagingError as exc:  # still detaching: a retry, or the manager's start
            raise errors.AttachmentFailed(reason=str(exc)) from exc
    with session.core_writer() as s:
        attachments.remove(s, attachment_id)
        attachments.settle(s, volume_id)
        return attachments.of_volume(s, volume_id)


def _forget(attachment_id: str) -> None:
    """Undo a reservation whose connection failed."""
    with session.core_writer() as s:
        volume_id = attachments.get(s, attachment_id, None).volume_id
        attachments.remove(s, attachment_id)
        attachments.settle(s, volume_id)


def begin_detaching(project_id: str | None, volume_id: str) -> None:
    """Nova's first step of a detach: `in-use` to `detaching`, or Cinder's 400."""
    with session.core_writer() as s:
        volumes.host_of(s, volume_id, project_id)
        if not volumes.swap_status(s, volume_id, [states.IN_USE],
                                   {"status": states.DETACHING}):
            raise errors.InvalidVolume(reason=(
                "Unable to detach volume. Volume status must be 'in-use' and "
                "attach_status must be 'attached' to detach."))


def roll_detaching(project_id: str | None, volume_id: str) -> None:
    """A detach that failed: `detaching` back to `in-use` (anything else is left)."""
    with session.core_writer() as s:
        volumes.host_of(s, volume_id, project_id)
        volumes.swap_status(s, volume_id, [states.DETACHING], {"status": states.IN_USE})
