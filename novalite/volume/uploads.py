"""A volume written into a new image (Cinder's copy_volume_to_image, the
`os-volume_upload_image` action; `openstack image create --volume`). The image is made
here, queued and owned by the caller's project, with the formats asked for and the
properties of the image the volume was made from (Cinder keeps those as the volume's
image metadata: a kernel and ramdisk to boot it with, above all); the volume is
`uploading` until its manager has converted its data and sent it to the image service,
then back to the status its attachments make. The image is made in this process, as
the compute API's snapshot images are: the API process holds the image service."""

from __future__ import annotations

import dataclasses

from novalite.conf import CONF
from novalite.context import RequestContext
from novalite.db import session
from novalite.image import api as image_api
from novalite.image import errors as image_errors
from novalite.image.record import ImageRecord
from novalite.volume import attachments, errors, states, volumes
from novalite.volume.records import Volume
from novalite.volume.rpcapi import VolumeAPI

# What the file backend's qemu-img writes (Cinder's drivers each have their own list)
DISK_FORMATS = ("raw", "qcow2")
# Properties an image of a volume does not take from the volume's image (Cinder's
# glance_core_properties are the image's own fields, set anew here)
_NOT_COPIED = frozenset({"image_id", "checksum", "size", "min_disk", "min_ram", "name",
                         "disk_format", "container_format", "status", "owner"})


@dataclasses.dataclass(frozen=True)
class Request:
    image_name: str
    force: bool = False
    disk_format: str = "raw"
    container_format: str = "bare"
    visibility: str = "private"
    protected: bool = False


def _statuses(force: bool) -> tuple[str, ...]:
    """Cinder's: an attached volume only with `force`, where the deployment allows it."""
    if force and not CONF.enable_force_upload:
        raise errors.InvalidVolume(reason=(
            "Cannot upload an in-use volume with force: [DEFAULT] enable_force_upload is "
            "off"))
    return (states.AVAILABLE, states.IN_USE) if force else (states.AVAILABLE,)


def _inherited(ctx: RequestContext, volume: Volume) -> dict[str, str]:
    if not volume.image_id:
        return {}
    try:
        origin = image_api.get(ctx, volume.image_id)
    except image_errors.ImageNotFound:
        return {}
    return {key: value for key, value in origin.properties.items() if key not in _NOT_COPIED}


def upload(ctx: RequestContext, project_id: str | None, volume_id: str, request: Request
           ) -> tuple[Volume, ImageRecord]:
    """The volume `uploading` and its new image (queued); the copy cast to its manager.
    A volume that cannot be uploaded gets no image."""
    if request.disk_format not in DISK_FORMATS:
        raise errors.InvalidInput(reason=(
            f"Invalid disk-format '{request.disk_format}' is specified: novalite's file "
            f"backend writes {' or '.join(DISK_FORMATS)} images."))
    with session.writer() as s:
        volume = volumes.get(s, volume_id, project_id)
        if volume.host is None or not volumes.swap_status(
                s, volume_id, _statuses(request.force), {"status": states.UPLOADING}):
            raise errors.InvalidVolume(reason=(
                "Volume status must be available" + ("/in-use" if request.force else "")
                + f", but it is {volume.status}."))
        uploading = volumes.get(s, volume_id, None)
    image = None
    try:
        image = image_api.create(ctx, ImageRecord(
            id="", name=request.image_name, visibility=request.visibility,
            disk_format=request.disk_format, container_format=request.container_format,
            min_disk=volume.size, properties=_inherited(ctx, volume)))
        VolumeAPI().copy_volume_to_image(ctx, volume.host, volume_id, image.id,
                                         request.disk_format, request.container_format)
    except BaseException:
        if image is not None:
            image_api.delete(image)
        with session.writer() as s:
            attachments.settle(s, volume_id)
        raise
    if request.protected:  # once nothing can fail: a protected image is not deleted
        image = image_api.update(image, dataclasses.replace(image, protected=True))
    return uploading, image
