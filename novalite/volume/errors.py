"""The volume service's errors, with Cinder's messages and the status Cinder answers."""

from __future__ import annotations

from novalite.exception import NovaliteException


class VolumeError(NovaliteException):
    code = 400
    safe = True


class InvalidInput(VolumeError):
    msg_fmt = "Invalid input received: %(reason)s"


class InvalidVolume(VolumeError):
    msg_fmt = "Invalid volume: %(reason)s"


class VolumeTypeInUse(VolumeError):
    msg_fmt = ("Volume Type %(volume_type_id)s deletion is not allowed with volumes present "
               "with the type.")


class ExtraSpecsRefused(VolumeError):
    """Cinder's 400 for a change of a type's extra specs, its text alone."""

    msg_fmt = "%(reason)s"


class VolumeNotFound(VolumeError):
    msg_fmt = "Volume %(volume_id)s could not be found."
    code = 404


class VolumeTypeNotFound(VolumeError):
    msg_fmt = "Volume type %(volume_type_id)s could not be found."
    code = 404


class VolumeTypeNotFoundByName(VolumeError):
    msg_fmt = "Volume type with name %(volume_type_name)s could not be found."
    code = 404


class VolumeTypeExtraSpecsNotFound(VolumeError):
    msg_fmt = "Volume Type %(volume_type_id)s has no extra specs with key %(extra_specs_key)s."
    code = 404


class MessageNotFound(VolumeError):
    msg_fmt = "Message %(message_id)s could not be found."
    code = 404


class VolumeTypeExists(VolumeError):
    msg_fmt = "Volume Type %(id)s already exists."
    code = 409


class BackendError(NovaliteException):
    """The backend failed to create, copy or remove a volume's data (the manager sets the
    volume's status and records a message; it never reaches a user as such)."""


class ImageTooLarge(BackendError):
    """The disk to copy into a volume is larger than the volume."""


class QuotaError(VolumeError):
    code = 413
    headers = {"Retry-After": "0"}


class VolumeSizeExceedsAvailableQuota(QuotaError):
    msg_fmt = ("Requested volume or snapshot exceeds allowed %(name)s quota. Requested "
               "%(requested)sG, quota is %(quota)sG and %(consumed)sG has been consumed.")


class VolumeLimitExceeded(QuotaError):
    msg_fmt = "Maximum number of volumes allowed (%(allowed)d) exceeded for quota '%(name)s'."


class SnapshotLimitExceeded(QuotaError):
    msg_fmt = "Maximum number of snapshots allowed (%(allowed)d) exceeded"


class InvalidSnapshot(VolumeError):
    msg_fmt = "Invalid snapshot: %(reason)s"


class SnapshotStatusNotReportable(VolumeError):
    msg_fmt = "Snapshot status %(current)s not allowed for update_snapshot_status"


class SnapshotStatusRefused(VolumeError):
    msg_fmt = ("Provided snapshot status %(provided)s not allowed for snapshot with status "
               "%(current)s.")


class SnapshotNotFound(VolumeError):
    msg_fmt = "Snapshot %(snapshot_id)s could not be found."
    code = 404


class VolumeAttachmentNotFound(VolumeError):
    msg_fmt = "Volume attachment could not be found with filter: %(filter)s."
    code = 404


class ConflictNovaUsingAttachment(VolumeError):
    """A user's delete of an attachment a server uses would leave the device on the
    compute host (Cinder's Bug #2004555): only the compute service may delete it."""

    msg_fmt = "Detach volume from instance %(instance_id)s using the Compute API"
    code = 409


class ResourceConflict(VolumeError):
    msg_fmt = "Resource conflict: %(reason)s"
    code = 409


class AttachmentFailed(VolumeError):
    """The volume manager could not export the volume to the connector, or is not
    reachable; the attachment was left as it was before the request."""

    msg_fmt = "Unable to update attachment (%(reason)s)."
    code = 500


class ExportError(BackendError):
    """qemu-nbd could not serve a volume, or could not be stopped."""
