"""The volumes a server is created with (Nova's block_device_mapping_v2 on POST /servers):
its boot volume, when it is volume-backed, and volumes attached from the start.

Nova's rules, with its texts: each entry's format (BlockDeviceDict.from_api), the boot
sequence (boot indexes 0..n, one of them 0), the sizes an image, snapshot or blank
source needs, what each source names existing and usable (_validate_bdm), and no
existing volume given to several servers at once (_check_and_transform_bdm). An
existing volume is reserved for the server (a Cinder attachment, as Nova's
check_attach_and_reserve_volume) before the build is queued, so a volume in use is
refused at once. A volume to make from an image, a snapshot or nothing is asked of
the volume service here too, where Nova's compute asks: novalite's services never
hold a user's token, and the volume must be the user's (their project, their quota,
refused at once when over it); the compute that builds the server waits for it and
reserves it (novalite.compute.volume_steps).

A volume's `tag` (2.32, 2.42+) is kept on its mapping, for the guest's device metadata.

Not served, refused by name: local disks other than the image's root (ephemeral and
swap disks: source `blank` to `local`), which novalite's flavors never give, and a tag
on the image's root (novalite keeps no mapping for it to hold the tag)."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import string
from collections.abc import Callable
from typing import Any

from novalite import exception, strutils
from novalite.clients import cinder
from novalite.compute import multiattach, snapshots
from novalite.context import RequestContext
from novalite.db.api import block_devices
from novalite.image import api as image_api
from novalite.image import errors as image_errors
from novalite.objects.block_device import BlockDeviceMapping
from novalite.objects.image import ImageMeta
from novalite.objects.instance import Instance

LOG = logging.getLogger(__name__)

# What an image's block_device_mapping entries say of a device (Nova's image mapping)
_IMAGE_MAPPING_KEYS = frozenset({"source_type", "destination_type", "boot_index",
                                 "volume_size", "device_name", "delete_on_termination",
                                 "disk_bus", "device_type", "volume_type"})

ROOT_DEVICE = "/dev/vda"
VOLUME, IMAGE, SNAPSHOT, BLANK = "volume", "image", "snapshot", "blank"
LOCAL = "local"


class InvalidBDM(exception.Invalid):
    msg_fmt = "Block Device Mapping is Invalid."


class InvalidBDMFormat(InvalidBDM):
    msg_fmt = "Block Device Mapping is Invalid: %(details)s"


class InvalidBDMBootSequence(InvalidBDM):
    msg_fmt = ("Block Device Mapping is Invalid: Boot sequence for the instance and "
               "image/block device mapping combination is not valid.")


class InvalidBDMVolume(InvalidBDM):
    msg_fmt = "Block Device Mapping is Invalid: failed to get volume %(id)s."


class InvalidBDMSnapshot(InvalidBDM):
    msg_fmt = "Block Device Mapping is Invalid: failed to get snapshot %(id)s."


class InvalidBDMImage(InvalidBDM):
    msg_fmt = "Block Device Mapping is Invalid: failed to get image %(id)s."


class InvalidBDMVolumeNotBootable(InvalidBDM):
    msg_fmt = "Block Device %(id)s is not bootable."


@dataclasses.dataclass
class Requested:
    """One block_device_mapping_v2 entry, checked and typed."""

    source_type: str
    destination_type: str
    uuid: str | None = None
    boot_index: int | None = None
    volume_size: int | None = None
    delete_on_termination: bool = False
    device_name: str | None = None
    disk_bus: str | None = None
    device_type: str | None = None
    volume_type: str | None = None
    tag: str | None = None

    @property
    def is_image_root(self) -> bool:
        """The entry clients add for the image a server boots from (its local disk)."""
        return (self.source_type == IMAGE and self.destination_type == LOCAL
                and self.boot_index == 0)

    def mapping(self, instance_uuid: str) -> dict[str, Any]:
        """The block_device_mapping row's values for the server."""
        source_id = {VOLUME: "volume_id", IMAGE: "image_id", SNAPSHOT: "snapshot_id"}
        values: dict[str, Any] = {
            "instance_uuid": instance_uuid, "source_type": self.source_type,
            "destination_type": self.destination_type, "boot_index": self.boot_index,
            "volume_size": self.volume_size, "device_name": self.device_name,
            "delete_on_termination": self.delete_on_termination,
            "disk_bus": self.disk_bus, "device_type": self.device_type,
            "volume_type": self.volume_type, "tag": self.tag}
        if self.source_type in source_id:
            values[source_id[self.source_type]] = self.uuid
        return values


def _boot_index(value: Any) -> int | None:
    if value is None or value == "":
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        raise InvalidBDMFormat(details="Boot index is invalid.") from None


def _entry(api: dict[str, Any]) -> Requested:
    """Nova's BlockDeviceDict.from_api; an image root is taken with or without an
    imageRef beside it (Nova's wants one; `openstack server create` sends none)."""
    source = api.get("source_type")
    if not source:
        raise InvalidBDMFormat(details="Some required fields are missing")
    device_uuid = api.get("uuid")
    if source == BLANK and device_uuid:
        raise InvalidBDMFormat(details="Invalid device UUID.")
    if source != BLANK and not device_uuid:
        raise InvalidBDMFormat(details="Missing device UUID.")
    destination = api.get("destination_type") or (
        VOLUME if source in (VOLUME, SNAPSHOT) else LOCAL)
    device_name = api.get("device_name")
    if device_name is not None:
        if not 1 <= len(device_name) <= 255:
            raise InvalidBDMFormat(details="Device name empty or too long.")
        if " " in device_name:
            raise InvalidBDMFormat(details="Device name contains spaces.")
        if not device_name.startswith("/dev/"):
            device_name = f"/dev/{device_name}"
    entry = Requested(
        source_type=source, destination_type=destination, uuid=device_uuid,
        boot_index=_boot_index(api.get("boot_index")),
        volume_size=int(api["volume_size"]) if api.get("volume_size") else None,
        delete_on_termination=strutils.parse_bool(
            str(api.get("delete_on_termination", ""))) is True,
        device_name=device_name, disk_bus=api.get("disk_bus"),
        device_type=api.get("device_type"), volume_type=api.get("volume_type"),
        tag=api.get("tag"))
    if source == IMAGE and destination == LOCAL and not entry.is_image_root:
        raise InvalidBDMFormat(details="Mapping image to local is not supported.")
    if entry.is_image_root and entry.tag:
        raise exception.Invalid(
            "block_device_mapping_v2 tag on the image's root disk (source_type 'image', "
            "destination_type 'local') is not supported by novalite; tag volumes only")
    if destination == LOCAL and entry.volume_type:
        raise InvalidBDMFormat(details="Specifying a volume_type with "
                                       "destination_type=local is not supported.")
    if source == VOLUME and entry.volume_type:
        raise InvalidBDMFormat(details="Specifying volume type to existing volume is "
                                       "not supported.")
    if api.get("guest_format"):
        raise exception.Invalid(
            "block_device_mapping_v2 guest_format is not supported by novalite: it "
            "formats local ephemeral and swap disks, which novalite does not make")
    if destination == LOCAL and source != IMAGE:
        raise exception.Invalid(
            f"block_device_mapping_v2 source_type '{source}' with destination_type "
            "'local' (an ephemeral or swap disk) is not supported by novalite: its "
            "flavors give no ephemeral or swap disks; use destination_type 'volume'")
    return entry


def from_api(entries: list[dict[str, Any]]) -> list[Requested]:
    """The request's entries less the image root (see image_root: the server boots
    from that image as from an imageRef)."""
    requested = [_entry(dict(api)) for api in entries]
    return [entry for entry in requested if not entry.is_image_root]


def image_root(entries: list[dict[str, Any]]) -> str | None:
    """The image of an image root entry (a client's way of naming the image)."""
    for api in entries:
        if (api.get("source_type") == IMAGE and api.get("destination_type") == LOCAL
                and str(api.get("boot_index")) == "0"):
            return str(api.get("uuid"))
    return None


def image_defined(image: ImageMeta | None) -> list[Requested]:
    """The volumes an image names (Nova's _get_image_defined_bdms: the image of a
    volume-backed server's snapshot maps each snapshot of its volumes)."""
    properties = image.properties if image is not None else {}
    mappings = properties.get("block_device_mapping")
    if not mappings or strutils.parse_bool(str(properties.get("bdm_v2", ""))) is not True:
        return []
    found = []
    for mapping in json.loads(mappings) if isinstance(mappings, str) else mappings:
        source = mapping.get("source_type")
        found.append(_entry({**{key: value for key, value in mapping.items()
                                if key in _IMAGE_MAPPING_KEYS},
                             "uuid": mapping.get(f"{source}_id")}))
    return found


def merged(from_image: list[Requested], requested: list[Requested]) -> list[Requested]:
    """Nova's _merge_bdms_lists: a requested device replaces the image's of its name."""
    names = {d.device_name for d in requested if d.device_name}
    return [d for d in from_image if d.device_name not in names] + requested


@dataclasses.dataclass
class Plan:
    """What a create's block devices decided: the devices, and for a volume-backed
    server the image metadata it boots with (Nova's get_bdm_image_metadata)."""

    devices: list[Requested]
    boot_image: ImageMeta | None = None

    @property
    def volume_backed(self) -> bool:
        return any(d.boot_index == 0 and d.destination_type == VOLUME for d in self.devices)


def plan(ctx: RequestContext, devices: list[Requested], image_booted: bool,
         count: int, image: ImageMeta | None = None,
         supports_multiattach: bool = False) -> Plan:
    """Nova's _validate_bdm and _check_and_transform_bdm for the request's devices
    (`image_booted`: the server boots from an imageRef, whose disk is boot index 0;
    an imageRef whose image maps the boot volume is the `image` it boots as; a
    multiattach volume only if `supports_multiattach`, a request of 2.60 or later)."""
    boot_indexes = sorted([d.boot_index for d in devices
                           if d.boot_index is not None and d.boot_index >= 0]
                          + ([0] if image_booted else []))
    if not boot_indexes or any(i != v for i, v in enumerate(boot_indexes)):
        raise InvalidBDMBootSequence()
    if image_booted and any(d.destination_type == VOLUME and d.device_name == ROOT_DEVICE
                            for d in devices):
        raise exception.Invalid("The volume cannot be assigned the same device name as "
                                "the root device vda")
    if count > 1 and any(d.source_type == VOLUME for d in devices):
        raise exception.Invalid("Cannot attach one or more volumes to multiple instances")
    _name_devices(devices, image_booted)
    volumes = cinder.Client(ctx)
    found = Plan(devices)
    for device in devices:
        _check_source(ctx, volumes, device, supports_multiattach)
        if device.boot_index == 0:
            found.boot_image = image or _boot_image(ctx, volumes, device)
    return found


def _name_devices(devices: list[Requested], image_booted: bool) -> None:
    """Nova's default device names: the boot volume /dev/vda, the others the next free
    /dev/vdX in the request's order."""
    used = {d.device_name for d in devices if d.device_name}
    if image_booted:
        used.add(ROOT_DEVICE)
    free = (f"/dev/vd{letter}" for letter in string.ascii_lowercase)
    for device in sorted(devices, key=lambda d: d.boot_index != 0):
        if device.device_name:
            continue
        wanted = ROOT_DEVICE if device.boot_index == 0 and ROOT_DEVICE not in used else None
        device.device_name = wanted or next(name for name in free if name not in used)
        used.add(device.device_name)


def _check_source(ctx: RequestContext, volumes: cinder.Client, device: Requested,
                  supports_multiattach: bool) -> None:
    uuid = device.uuid or ""
    if device.source_type == IMAGE:
        try:
            image_api.get_bootable(ctx, uuid)
        except image_errors.ImageNotFound:
            raise InvalidBDMImage(id=uuid) from None
        if not device.volume_size:
            raise InvalidBDM("Images with destination_type 'volume' need to have a "
                             "non-zero size specified")
    elif device.source_type == VOLUME:
        volume = _get(volumes.get, uuid, InvalidBDMVolume)
        if volume.get("status") != "available" and not multiattach.is_multiattach(volume):
            raise exception.InvalidVolume(
                reason=f"volume '{uuid}' status must be 'available'. Currently in "
                       f"'{volume.get('status')}'")
        multiattach.check_microversion(volume, supports_multiattach)
        device.volume_size = volume.get("size")
    elif device.source_type == SNAPSHOT:
        snapshot = _get(volumes.snapshot_get, uuid, InvalidBDMSnapshot)
        device.volume_size = device.volume_size or snapshot.get("size")
    elif device.source_type == BLANK and not device.volume_size:
        raise InvalidBDM("Blank volumes (source: 'blank', dest: 'volume') need to have "
                         "non-zero size")


def _get(read: Any, uuid: str, invalid: type[InvalidBDM]) -> dict[str, Any]:
    try:
        found: dict[str, Any] = read(uuid)
    except cinder.CinderError as exc:
        LOG.info("Failed validating %s: %s", uuid, exc)
        raise invalid(id=uuid) from None
    return found


def _boot_image(ctx: RequestContext, volumes: cinder.Client, device: Requested
                ) -> ImageMeta:
    """The image a volume-backed server boots as: the image it is made from, or the
    one its volume (or the snapshot's volume) was made from; a volume made from none
    boots as its own disk, with no image properties."""
    image_id = device.uuid if device.source_type == IMAGE else None
    volume_id = device.uuid if device.source_type == VOLUME else None
    if device.source_type == SNAPSHOT:
        volume_id = volumes.snapshot_get(device.uuid or "")["volume_id"]
    if volume_id:
        volume = _get(volumes.get, volume_id, InvalidBDMVolume)
        if strutils.parse_bool(str(volume.get("bootable", "true"))) is False:
            raise InvalidBDMVolumeNotBootable(id=volume_id)
        image_id = (volume.get("volume_image_metadata") or {}).get("image_id")
    if image_id:
        try:
            return image_api.get_bootable(ctx, image_id).to_meta()
        except image_errors.ImageNotFound:
            if device.source_type == IMAGE:
                raise InvalidBDMImage(id=image_id) from None
    return ImageMeta(id="", properties={})


def reserve(ctx: RequestContext, found: Plan, instance_uuid: str
            ) -> list[BlockDeviceMapping]:
    """The server's mappings: each existing volume reserved for it, each other one
    asked of the volume service now, in the user's name (their project's volume, their
    quota; the compute that builds the server reserves it once it is made). On a
    failure nothing is left reserved, made or mapped."""
    made: list[BlockDeviceMapping] = []
    volumes = cinder.Client(ctx)
    try:
        for device in found.devices:
            values = device.mapping(instance_uuid)
            if device.source_type != VOLUME:
                values["volume_id"] = _request(
                    volumes.create, device.volume_size or 0,
                    f"{instance_uuid}-blank-vol" if device.source_type == BLANK else "",
                    image_id=values.get("image_id"), snapshot_id=values.get("snapshot_id"),
                    volume_type=device.volume_type)["id"]
            made.append(block_devices.bdm_create(values))
            if device.source_type == VOLUME:
                attachment = _request(volumes.attachment_create, device.uuid or "",
                                      instance_uuid)
                made[-1] = block_devices.bdm_update(made[-1].uuid,
                                                    {"attachment_id": attachment["id"]})
    except BaseException:
        release(ctx, made)
        raise
    return made


class VolumeOverQuota(exception.Forbidden):
    msg_fmt = "Volume resource quota exceeded: %(reason)s"


def _request(call: Callable[..., dict[str, Any]], *args: Any, **kwargs: Any
             ) -> dict[str, Any]:
    """The volume service's refusal is the request's, with its text: over the volume
    quotas a 403 (Nova's OverQuota), else Nova's 400."""
    try:
        return call(*args, **kwargs)
    except cinder.CinderError as exc:
        if exc.status == 413:
            raise VolumeOverQuota(reason=exc.format_message()) from None
        raise exception.InvalidVolume(reason=exc.format_message()) from None


def release(ctx: RequestContext, made: list[BlockDeviceMapping]) -> None:
    """A refused create's reservations, volumes and mappings undone (a failure is
    logged: the volume stays for its owner to delete)."""
    volumes = cinder.Client(ctx, admin=True)
    for bdm in made:
        try:
            if bdm.attachment_id:
                volumes.attachment_delete(bdm.attachment_id)
            if bdm.source_type != VOLUME and bdm.volume_id:
                with contextlib.suppress(exception.VolumeNotCreated):
                    volumes.wait_available(bdm.volume_id)  # none is deleted `creating`
                volumes.delete(bdm.volume_id)
        except (cinder.CinderError, cinder.CinderUnavailable):
            LOG.exception("Could not undo volume %s of a refused create", bdm.volume_id)
        block_devices.bdm_destroy(bdm.uuid)


def snapshot_volume_backed(ctx: RequestContext, instance: Instance, name: str,
                           metadata: dict[str, str]) -> str:
    """Nova's snapshot_volume_backed: a snapshot of each of the server's volumes (taken
    while they are in use), and an image holding no data that maps them, with the
    properties of the image the server boots as; a server booted from it gets volumes
    made from those snapshots (image_defined). The image is the user's, active."""
    volumes = cinder.Client(ctx)
    mapped = []
    for bdm in block_devices.bdm_get_all_by_instance(instance.uuid):
        snapshot = _request(volumes.snapshot_create, bdm.volume_id or "",
                            f"snapshot for {name}")
        mapped.append({"source_type": SNAPSHOT, "destination_type": VOLUME,
                       "snapshot_id": snapshot["id"], "volume_size": bdm.volume_size,
                       "boot_index": bdm.boot_index, "device_name": bdm.device_name,
                       "delete_on_termination": bdm.delete_on_termination,
                       "disk_bus": bdm.disk_bus, "device_type": bdm.device_type})
    image = snapshots.create_image(ctx, instance, name, "snapshot", {
        **metadata, "block_device_mapping": json.dumps(mapped), "bdm_v2": "True",
        "root_device_name": ROOT_DEVICE})
    # formats for no data of its own: the image service takes no data without them
    image_api.update(image, dataclasses.replace(image, disk_format="raw",
                                                container_format="bare"))
    image_api.upload(image.id, iter(()))  # no data: active, size 0, as Nova's
    return image.id


def check_rebuild_image(ctx: RequestContext, instance_uuid: str, image_id: str) -> None:
    """A volume-backed server is rebuilt from the image its boot volume holds only
    (Nova's rule before 2.93, which can write another image into the volume)."""
    root = next((b for b in block_devices.bdm_get_all_by_instance(instance_uuid)
                 if b.is_root), None)
    volume = cinder.Client(ctx).get(root.volume_id or "") if root else {}
    if (volume.get("volume_image_metadata") or {}).get("image_id") != image_id:
        raise exception.ImageUnacceptable(
            image_id=image_id,
            reason="Unable to rebuild with a different image for a volume-backed server.")
