"""Exceptions with a user-facing message and an HTTP code, in Nova's manner.

`msg_fmt` is formatted with the keyword arguments; `code` is what the API answers when the
exception reaches it. Exceptions of this module cross RPC boundaries intact (the RPC layer
re-raises them by class name), so a NoValidHost raised in the scheduler is a NoValidHost
in the conductor.
"""

from __future__ import annotations

import traceback
from typing import Any


class NovaliteException(Exception):
    msg_fmt = "An unknown exception occurred."
    code = 500
    safe = False

    def __init__(self, message: str | None = None, **kwargs: Any) -> None:
        self.kwargs = kwargs
        if "code" in kwargs:
            self.code = kwargs["code"]
        if message is None:
            try:
                message = self.msg_fmt % kwargs
            except (KeyError, TypeError, ValueError):
                message = self.msg_fmt
        self.message = message
        super().__init__(message)

    def format_message(self) -> str:
        return self.message


class Invalid(NovaliteException):
    msg_fmt = "Bad Request - Invalid Parameters"
    code = 400
    safe = True


class ValidationError(Invalid):
    msg_fmt = "%(detail)s"


class InvalidInput(Invalid):
    msg_fmt = "Invalid input received: %(reason)s"


class NotFound(NovaliteException):
    msg_fmt = "Resource could not be found."
    code = 404
    safe = True


class Forbidden(NovaliteException):
    msg_fmt = "Forbidden"
    code = 403
    safe = True


class Conflict(NovaliteException):
    msg_fmt = "Conflict"
    code = 409
    safe = True


class InstanceNotFound(NotFound):
    msg_fmt = "Instance %(instance_id)s could not be found."


class InstanceGroupNotFound(NotFound):
    msg_fmt = "Instance group %(group_uuid)s could not be found."


class ServerGroupLimitExceeded(Forbidden):
    msg_fmt = "Quota exceeded, too many server groups."


class GroupMemberLimitExceeded(Forbidden):
    msg_fmt = "Quota exceeded, too many servers in group"


class UnsupportedPolicyException(Invalid):
    msg_fmt = "ServerGroup policy is not supported: %(reason)s"


class GroupAffinityViolation(NovaliteException):
    msg_fmt = "%(policy)s instance group policy was violated"


class FlavorNotFound(NotFound):
    msg_fmt = "Flavor %(flavor_id)s could not be found."


class FlavorExists(Conflict):
    msg_fmt = "Flavor with name %(name)s already exists."


class FlavorIdExists(Conflict):
    msg_fmt = "Flavor with ID %(flavor_id)s already exists."


class FlavorExtraSpecsNotFound(NotFound):
    msg_fmt = "Flavor %(flavor_id)s has no extra specs with key %(extra_specs_key)s."


class FlavorExtraSpecUpdateCreateFailed(Conflict):
    msg_fmt = "Flavor %(id)s extra spec cannot be updated or created after %(retries)d retries."


class FlavorAccessExists(Conflict):
    msg_fmt = ("Flavor access already exists for flavor %(flavor_id)s and project "
               "%(project_id)s combination.")


class FlavorAccessNotFound(NotFound):
    msg_fmt = "Flavor access not found for %(flavor_id)s / %(project_id)s combination."


class ImageNotFound(NotFound):
    msg_fmt = "Image %(image_id)s could not be found."


class ComputeHostNotFound(NotFound):
    msg_fmt = "Compute host %(host)s could not be found."


class ComputeHostMetricNotFound(NotFound):
    msg_fmt = "Metric %(name)s could not be found on the compute host node %(host)s.%(node)s."


class AggregateNotFound(NotFound):
    msg_fmt = "Aggregate %(aggregate_id)s could not be found."


class AggregateNameExists(Conflict):
    msg_fmt = "Aggregate %(aggregate_name)s already exists."


class AggregateHostExists(Conflict):
    msg_fmt = "Aggregate %(aggregate_id)s already has host %(host)s."


class AggregateHostNotFound(NotFound):
    msg_fmt = "Aggregate %(aggregate_id)s has no host %(host)s."


class AggregateMetadataKeyExists(Invalid):
    msg_fmt = "Aggregate %(aggregate_id)s already contain metadata key %(key)s."


class InvalidAggregateAction(Invalid):
    msg_fmt = "Unacceptable parameters."


class InvalidAggregateActionAdd(InvalidAggregateAction):
    msg_fmt = "Cannot add host to aggregate %(aggregate_id)s. Reason: %(reason)s."


class InvalidAggregateActionDelete(InvalidAggregateAction):
    msg_fmt = "Cannot remove host from aggregate %(aggregate_id)s. Reason: %(reason)s."


class InvalidAggregateActionUpdate(InvalidAggregateAction):
    msg_fmt = "Cannot update aggregate %(aggregate_id)s. Reason: %(reason)s."


class InvalidAggregateActionUpdateMeta(InvalidAggregateAction):
    msg_fmt = "Cannot update metadata of aggregate %(aggregate_id)s. Reason: %(reason)s."


class FlavorMemoryTooSmall(Invalid):
    msg_fmt = "Flavor's memory is too small for requested image."


class FlavorDiskSmallerThanImage(Invalid):
    msg_fmt = ("Flavor's disk is too small for requested image. Flavor disk is "
               "%(flavor_size)i bytes, image is %(image_size)i bytes.")


class FlavorDiskSmallerThanMinDisk(Invalid):
    msg_fmt = ("Flavor's disk is smaller than the minimum size specified in image "
               "metadata. Flavor disk is %(flavor_size)i bytes, minimum size is "
               "%(image_min_disk)i bytes.")


class ServiceNotFound(NotFound):
    msg_fmt = "Service %(service_id)s could not be found."


class ServiceHasInstances(Conflict):
    msg_fmt = ("Unable to delete compute service that is hosting instances. Migrate or "
               "delete the instances first.")


class FlavorNotFoundForCreate(Invalid):
    msg_fmt = "Flavor '%(flavor_id)s' could not be found."


class ImageNotActive(Invalid):
    msg_fmt = "Image %(image_id)s is not active."


class InstanceInvalidState(Conflict):
    msg_fmt = "Cannot '%(action)s' instance %(instance_uuid)s while it is in %(attr)s %(state)s"


class InstanceIsLocked(Conflict):
    msg_fmt = "Instance %(instance_uuid)s is locked"


class InstanceNotReady(Conflict):
    msg_fmt = "Instance %(instance_id)s is not ready"


class UnshelveInstanceInvalidState(Conflict):
    msg_fmt = ('Specifying an availability zone or a host when unshelving server '
               '"%(instance_uuid)s" with status "%(state)s" is not supported. The server '
               'status must be SHELVED_OFFLOADED.')


class UnshelveHostNotInAZ(Conflict):
    msg_fmt = 'Host "%(host)s" is not in the availability zone "%(availability_zone)s".'


class ImageUnacceptable(Invalid):
    msg_fmt = "Image %(image_id)s is unacceptable: %(reason)s"


class InstanceNotRescuable(Invalid):
    msg_fmt = "Instance %(instance_id)s cannot be rescued: %(reason)s"


class InstanceNotRunning(Conflict):
    msg_fmt = "Instance %(instance_id)s is not running."


class FeatureNotSupported(NovaliteException):
    """A driver without the operation (Nova's raise_feature_not_supported)."""

    msg_fmt = "The requested functionality is not supported."
    code = 501
    safe = True


class ShareNotFound(NotFound):
    msg_fmt = "Share %(share_id)s could not be found."


class ForbiddenSharesNotConfiguredCorrectly(Conflict):
    """A host without virtio-fs, or a guest whose memory it cannot share (Nova's
    exception is a 400, but its shares API answers it as a 409)."""

    msg_fmt = ("Feature not supported because either compute or instance are not "
               "configured correctly.")


class ManilaConnectionFailed(NovaliteException):
    """Nova lets this one through as a 500; a cloud without the shared file system
    service is not a fault of the API, so it is a 503 here, saying which service."""

    msg_fmt = "Connection to manila service failed: %(reason)s"
    code = 503
    safe = True


class ConsoleNotAvailable(NotFound):
    msg_fmt = "Guest does not have a console available."


class ConsoleTypeInvalid(Invalid):
    msg_fmt = "Invalid console type %(console_type)s"


class ConsoleTypeUnavailable(Invalid):
    msg_fmt = "Unavailable console type %(console_type)s."


class SocketPortRangeExhaustedException(Invalid):
    msg_fmt = "Not able to acquire a free port for %(host)s"


class PolicyFileInvalid(NovaliteException):
    msg_fmt = "The policy file %(path)s cannot be used: %(reason)s"


class UnexpectedTaskStateError(Conflict):
    msg_fmt = (
        "Conflict updating instance %(instance_uuid)s. Expected: %(expected)s. Actual: %(actual)s"
    )


class UnexpectedDeletingTaskStateError(UnexpectedTaskStateError):
    pass


class NoValidHost(NovaliteException):
    msg_fmt = "No valid host was found. %(reason)s"


class MoveInterrupted(NovaliteException):
    msg_fmt = ("The move was interrupted by a restart of its conductor; the server stays "
               "where it was.")


class MaxRetriesExceeded(NoValidHost):
    msg_fmt = "Exceeded maximum number of retries. %(reason)s"


class BuildNotQueued(NovaliteException):
    """The API could not hand a new server to the conductors (the message broker is
    unreachable); nothing was kept, and the request may be sent again."""

    msg_fmt = ("The server could not be queued for building (%(reason)s); nothing was "
               "created. Retry the request later.")
    code = 503
    safe = True
    headers = {"Retry-After": "10"}


class ComputeResourcesUnavailable(NovaliteException):
    msg_fmt = "Insufficient compute resources: %(reason)s."


class BuildAbortException(NovaliteException):
    msg_fmt = "Build of instance %(instance_uuid)s aborted: %(reason)s"


class VolumeNotCreated(NovaliteException):
    msg_fmt = ("Volume %(volume_id)s did not finish being created even after we waited "
               "%(seconds)s seconds or %(attempts)s attempts. And its status is "
               "%(volume_status)s.")


class VirtualInterfaceCreateException(NovaliteException):
    msg_fmt = "Virtual Interface creation failed: %(reason)s"


class InstanceExists(NovaliteException):
    msg_fmt = "Instance %(name)s already exists."


class ConfigInvalid(NovaliteException):
    msg_fmt = "Invalid configuration: %(reason)s"


class VirtDriverNotFound(ConfigInvalid):
    msg_fmt = "Could not load virt driver '%(name)s'. Known drivers: %(known)s"


class MarkerNotFound(NotFound):
    msg_fmt = "Marker %(marker)s could not be found."


class KeypairNotFound(NotFound):
    msg_fmt = "Keypair %(name)s not found for user %(user_id)s"


class KeyPairExists(Conflict):
    msg_fmt = "Key pair '%(key_name)s' already exists."


class InvalidKeypair(Invalid):
    msg_fmt = "Keypair data is invalid: %(reason)s"


class KeypairLimitExceeded(Forbidden):
    msg_fmt = "Quota exceeded, too many key pairs."


class TooManyInstances(Forbidden):
    msg_fmt = ("Quota exceeded for %(overs)s: Requested %(req)s, but already used %(used)s "
               "of %(allowed)s %(overs)s")


class MetadataLimitExceeded(Forbidden):
    msg_fmt = "Maximum number of metadata items exceeds %(allowed)d"


class CannotResizeToSameFlavor(Invalid):
    msg_fmt = "When resizing, instances must change flavor!"


class CannotResizeDisk(Invalid):
    msg_fmt = "Server disk was unable to be resized because: %(reason)s"


class ResizeError(NovaliteException):
    """A move the driver refused before it changed anything: the instance goes back to
    the state it was in, with a fault (Nova's InstanceFaultRollback of a ResizeError)."""

    msg_fmt = "Resize error: %(reason)s"


class MigrationPreCheckError(Invalid):
    msg_fmt = "Migration pre-check error: %(reason)s"


class MigrationNotFoundForInstance(NotFound):
    msg_fmt = "Migration %(migration_id)s not found for instance %(instance_id)s"


class InvalidMigrationState(Invalid):
    msg_fmt = ("Migration %(migration_id)s state of instance %(instance_uuid)s is %(state)s. "
               "Cannot %(method)s while the migration is in this state.")


class UnexpectedMigrationStatus(Conflict):
    """Another step moved the migration on first (an abort racing the start of a
    live migration): whoever changed it owns what follows."""

    msg_fmt = ("Conflict updating migration %(migration_uuid)s. Expected: %(expected)s. "
               "Actual: %(actual)s")


class LiveMigrationAborted(NovaliteException):
    msg_fmt = "The live migration of instance %(instance_uuid)s was aborted."


# --- volumes attached to servers (Nova's texts) -------------------------------------


class VolumeNotFound(NotFound):
    msg_fmt = "Volume %(volume_id)s could not be found."


class InvalidVolume(Invalid):
    msg_fmt = "Invalid volume: %(reason)s"


class VolumeBDMNotFound(NotFound):
    msg_fmt = "No volume Block Device Mapping with id %(volume_id)s."


class VolumeBDMIsMultiAttach(Invalid):
    msg_fmt = ("Block Device Mapping %(volume_id)s is a multi-attach volume and is not "
               "valid for this operation.")


class VolumeSnapshotNotSupported(NovaliteException):
    """A driver asked for an assisted volume snapshot of a disk it cannot snapshot so
    (Nova's libvirt driver's "Found no disk to snapshot." for a disk that is neither a
    file nor on a netfs share)."""

    msg_fmt = ("Found no disk to snapshot: volume %(volume_id)s is a %(protocol)s network "
               "disk, and an assisted snapshot takes a file or a netfs share.")


class DevicePathInUse(Conflict):
    msg_fmt = "The supplied device path (%(path)s) is in use."


class VolumeServiceError(NovaliteException):
    """The volume service refused or failed a request the compute made for an attach
    or a detach: its status and its text."""

    msg_fmt = "The volume service answered %(status)s: %(reason)s"


class DeviceDetachFailed(NovaliteException):
    msg_fmt = "Device detach failed for %(device)s: %(reason)s"


class InterfaceAttachFailed(NovaliteException):
    """The compute could not plug the port into the guest (Nova's API answers 500 with
    this text); the port is unbound again."""

    msg_fmt = "Failed to attach network adapter device to %(instance_uuid)s"
    safe = True


class InterfaceDetachFailed(Invalid):
    msg_fmt = "Failed to detach network adapter device from %(instance_uuid)s"


class AttachInterfaceNotSupported(Invalid):
    msg_fmt = "Attaching interfaces is not supported for instance %(instance_uuid)s."


# changePassword's refusals: Nova's API answers each 409 with its text.
class InstancePasswordSetFailed(Conflict):
    msg_fmt = "Failed to set admin password on %(instance)s because %(reason)s"


class InstanceAgentNotEnabled(Conflict):
    msg_fmt = "Guest agent is not enabled for the instance"


class QemuGuestAgentNotEnabled(InstanceAgentNotEnabled):
    msg_fmt = "QEMU guest agent is not enabled"


class SetAdminPasswdNotSupported(Conflict):
    msg_fmt = "Set admin password is not supported"


class AdminPasswordNotImplemented(NovaliteException):
    """The driver, or the guest's agent, cannot set a password (Nova's NotImplementedError
    from the compute, answered 501 by its API)."""

    msg_fmt = "set_admin_password is not implemented by this driver or guest instance."
    code = 501
    safe = True


def fault_message(exc: BaseException) -> str:
    """The message an instance fault records: a domain exception's own text, otherwise the
    error's text, or its class name when it has none (a fault never says nothing)."""
    if isinstance(exc, NovaliteException):
        return exc.format_message()
    return str(exc) or type(exc).__name__


def format_tb(exc: BaseException) -> str:
    """The traceback an instance fault's details and an action event keep."""
    return "".join(traceback.format_exception(exc))
