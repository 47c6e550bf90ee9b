"""The compute API's business logic (Nova's compute.api.API): what "boot" and "delete"
mean, independent of HTTP. The HTTP handlers in novalite.api.compute call this."""

from __future__ import annotations

import contextlib
import functools
import logging
import uuid as uuidlib
from collections.abc import Callable
from typing import Any, TypeVar

from novalite import availability_zones, exception, strutils, timeutils
from novalite.clients import placement as placement_client
from novalite.compute import (
    boot_volumes,
    guards,
    moves_api,
    neutron,
    quotas,
    server_groups,
    service_api,
    snapshots,
    volumes_api,
)
from novalite.compute import rpcapi as compute_rpcapi
from novalite.conductor import rpcapi as conductor_rpcapi
from novalite.conf import CONF
from novalite.context import RequestContext
from novalite.db.api import (
    actions,
    boots,
    compute_nodes,
    flavors,
    info_caches,
    instance_details,
    instances,
    keypairs,
    request_specs,
)
from novalite.image import api as image_api
from novalite.image import errors as image_errors
from novalite.image.record import ImageRecord
from novalite.objects import network_info, states
from novalite.objects.block_device import BlockDeviceMapping
from novalite.objects.diagnostics import Diagnostics
from novalite.objects.flavor import Flavor
from novalite.objects.image import ImageMeta
from novalite.objects.instance import Instance
from novalite.objects.network_info import VIF
from novalite.objects.request_spec import Destination, RequestSpec, UnshelvePlacement
from novalite.rpc.errors import MessagingError, MessagingTimeout

LOG = logging.getLogger(__name__)
T = TypeVar("T")

# How long the broker may take to accept a new build before the request is answered 503
# (it takes milliseconds when it is up; a client waiting a minute helps no one).
ENQUEUE_TIMEOUT = 5.0


GIB = 1024 ** 3


def _image_id(image_ref: str) -> str:
    """Nova accepts an image id or a URL ending in one."""
    return image_ref.rstrip("/").rsplit("/", 1)[-1]


def _default_hostname(name: str, instance_uuid: str, index: int, count: int) -> str:
    """Nova's: the sanitized display name (numbered when several are made at once), or
    `Server-<uuid>` when nothing of the name is usable."""
    hostname = strutils.sanitize_hostname(name)
    if not hostname:
        return f"Server-{instance_uuid}"
    return f"{hostname}-{index + 1}" if count > 1 else hostname


class API:
    def __init__(self) -> None:
        self.conductor = conductor_rpcapi.ComputeTaskAPI()
        self.compute = compute_rpcapi.ComputeAPI()
        self.network_api = neutron.API()

    def _flavor(self, ctx: RequestContext, flavor_ref: str) -> Flavor:
        """A private flavor is found only by admins and the projects given access."""
        try:
            flavor = flavors.flavor_get_by_flavorid(
                str(flavor_ref).rstrip("/").rsplit("/")[-1],
                None if ctx.is_admin else ctx.project_id)
        except exception.FlavorNotFound:
            raise exception.FlavorNotFoundForCreate(flavor_id=flavor_ref) from None
        if flavor.disabled:
            raise exception.Invalid(f"Flavor {flavor_ref} is disabled.")
        return flavor

    def _image(self, ctx: RequestContext, image_ref: str) -> ImageMeta:
        """Only an image the caller may boot (novalite.image.visibility), and only active."""
        image_id = _image_id(image_ref)
        try:
            image = image_api.get_bootable(ctx, image_id)
        except image_errors.ImageNotFound:
            raise exception.Invalid(f"Image {image_id} could not be found.") from None
        if image.status != "active":
            raise exception.ImageNotActive(image_id=image_id)
        return image.to_meta()

    @staticmethod
    def _check_flavor_fits_image(flavor: Flavor, image: ImageMeta) -> None:
        """Nova's create-time checks; a flavor with a 0 GB root disk takes the image's
        size, so only its memory is checked."""
        if flavor.memory_mb < (image.min_ram or 0):
            raise exception.FlavorMemoryTooSmall()
        disk = flavor.root_gb * GIB
        if not disk:
            return
        if (image.size or 0) > disk:
            raise exception.FlavorDiskSmallerThanImage(flavor_size=disk,
                                                       image_size=image.size)
        if (image.min_disk or 0) * GIB > disk:
            raise exception.FlavorDiskSmallerThanMinDisk(flavor_size=disk,
                                                         image_min_disk=image.min_disk * GIB)

    @staticmethod
    def _key_data(ctx: RequestContext, key_name: str | None) -> str | None:
        """The public key of the caller's key pair named `key_name`."""
        if key_name is None:
            return None
        try:
            return keypairs.key_pair_get(ctx.require_user_id(), key_name)["public_key"]
        except exception.KeypairNotFound:
            raise exception.Invalid("Invalid key_name provided.") from None

    def create(
        self,
        ctx: RequestContext,
        name: str,
        flavor_ref: str,
        image_ref: str,
        min_count: int = 1,
        max_count: int = 1,
        metadata: dict[str, str] | None = None,
        availability_zone: str | None = None,
        key_name: str | None = None,
        user_data: str | None = None,
        scheduler_hints: dict[str, Any] | None = None,
        description: str | None = None,
        forced_host: str | None = None,
        forced_node: str | None = None,
        requested_destination: dict[str, str | None] | None = None,
        access_ips: dict[str, str | None] | None = None,
        tags: list[str] | None = None,
        requested_networks: neutron.Requested = None,
        security_groups: list[str] | None = None,
        hostname: str | None = None,
        config_drive: bool = False,
        block_device_mapping: list[boot_volumes.Requested] | None = None,
        supports_multiattach: bool = False,
    ) -> list[str]:
        """Record the instances, start the build, return their uuids at once. A server
        boots from `image_ref`, or with none from the volume of `block_device_mapping`
        whose boot index is 0 (volume-backed: novalite.compute.boot_volumes); with a
        multiattach volume only if `supports_multiattach` (a request of 2.60 on)."""
        if min_count > max_count:
            raise exception.Invalid("min_count must be <= max_count")
        if hostname and max_count > 1:
            raise exception.Invalid("Unable to allocate a single hostname to multiple "
                                    "instances")
        flavor = self._flavor(ctx, flavor_ref)
        image = self._image(ctx, image_ref) if image_ref else None
        # an image may name volumes to boot with (a volume-backed server's snapshot)
        from_image = boot_volumes.image_defined(image)
        root_from_image = any(d.boot_index == 0 for d in from_image)
        boot = boot_volumes.plan(
            ctx, boot_volumes.merged(from_image, block_device_mapping or []),
            image is not None and not root_from_image, max_count,
            image if root_from_image else None, supports_multiattach)
        if boot.boot_image is None:
            assert image is not None  # plan wants a boot index 0 otherwise
            self._check_flavor_fits_image(flavor, image)
        else:  # the root disk is the volume, whatever the flavor's root_gb
            image = boot.boot_image
            if flavor.memory_mb < (image.min_ram or 0):
                raise exception.FlavorMemoryTooSmall()
        key_data = self._key_data(ctx, key_name)
        quotas.check_metadata(metadata, ctx.project_id)
        max_count = quotas.check_instances(ctx.require_project_id(), flavor, min_count, max_count)
        availability_zone = availability_zone or CONF.default_schedule_zone
        if availability_zone and forced_host is None:
            self._check_zone_available(availability_zone)
        if requested_destination:
            self._check_destination(**requested_destination)
        reservation_id = f"r-{uuidlib.uuid4().hex[:8]}"
        uuids = [str(uuidlib.uuid4()) for _ in range(max_count)]
        spec = RequestSpec(
            instance_uuid=uuids[0], flavor=flavor, image=image, project_id=ctx.project_id,
            user_id=ctx.user_id, num_instances=max_count, min_count=min_count,
            availability_zone=availability_zone,
            requested_destination=Destination(host=requested_destination.get("host"),
                                              node=requested_destination.get("node"))
            if requested_destination else None,
            force_hosts=[forced_host] if forced_host else [],
            force_nodes=[forced_node] if forced_node else [],
            scheduler_hints={k: v if isinstance(v, list) else [v]
                             for k, v in (scheduler_hints or {}).items()},
            is_bfv=boot.volume_backed,
        )
        spec.instance_group = server_groups.join_requested_group(ctx, scheduler_hints, uuids)
        vifs = self.network_api.allocate_for_build(ctx, uuids, requested_networks,
                                                   security_groups)
        mappings: list[BlockDeviceMapping] = []
        try:
            for instance_uuid in uuids:  # first: a volume refused leaves no instance
                mappings += boot_volumes.reserve(ctx, boot, instance_uuid)
            self._record(ctx, spec, uuids, vifs, name,
                         "" if boot.volume_backed else image.id, flavor,
                         availability_zone, key_name, key_data, access_ips, user_data,
                         reservation_id, description, metadata, tags, hostname,
                         config_drive or CONF.force_config_drive)
            self._enqueue(ctx, spec, uuids)
        except BaseException:
            boot_volumes.release(ctx, mappings)  # nor any reservation
            for instance_uuid, made in vifs.items():  # no port outlives a refused create
                self.network_api.deallocate_for_instance(
                    ctx, instance_uuid, {v.id for v in made if v.preserve_on_delete})
            raise
        return uuids

    def _record(self, ctx: RequestContext, spec: RequestSpec, uuids: list[str],
                vifs: dict[str, list[VIF]], name: str, image_ref: str, flavor: Flavor,
                availability_zone: str | None, key_name: str | None, key_data: str | None,
                access_ips: dict[str, str | None] | None, user_data: str | None,
                reservation_id: str, description: str | None,
                metadata: dict[str, str] | None, tags: list[str] | None,
                hostname: str | None, config_drive: bool) -> None:
        """The instances, their network info and request spec, in one transaction."""
        max_count = len(uuids)
        records = []
        for index, instance_uuid in enumerate(uuids):
            display = name if max_count == 1 else f"{name}-{index + 1}"
            records.append({
                "uuid": instance_uuid, "display_name": display,
                "hostname": hostname or _default_hostname(name, instance_uuid, index,
                                                          max_count),
                "project_id": ctx.project_id, "user_id": ctx.user_id,
                "image_ref": image_ref, "flavor": flavor, "vm_state": states.BUILDING,
                "task_state": states.SCHEDULING, "power_state": states.NOSTATE,
                "availability_zone": availability_zone, "key_name": key_name,
                "key_data": key_data, **(access_ips or {}), "user_data": user_data,
                "launch_index": index, "reservation_id": reservation_id,
                "display_description": description,
                "config_drive": "True" if config_drive else "",  # as Nova stores it
            })
        network_infos = {uuid: network_info.to_json(made) for uuid, made in vifs.items() if made}
        boots.boot_records_create(ctx, records, metadata, tags, spec, CONF.host,
                                  network_infos)
        self._recheck_quota(ctx, flavor, uuids)

    def _enqueue(self, ctx: RequestContext, spec: RequestSpec, uuids: list[str]) -> None:
        try:
            self.conductor.schedule_and_build_instances(ctx, spec, uuids,
                                                        timeout=ENQUEUE_TIMEOUT)
        except MessagingError as exc:
            LOG.error("Could not queue the build of %s: %s; withdrawing them", uuids, exc)
            for instance_uuid in uuids:
                instances.instance_destroy(instance_uuid)
            raise exception.BuildNotQueued(reason=str(exc)) from exc

    def refresh_network_info(self, ctx: RequestContext, instance: Instance) -> list[VIF]:
        """Cache what the network service now says of the instance's ports, with the
        tags the cache had."""
        vifs = network_info.with_tags(network_info.in_order(
            self.network_api.get_instance_nw_info(ctx, instance.uuid,
                                                  instance.preserved_ports()),
            instance.network_info), instance.port_tags())
        info_caches.update(instance.uuid, network_info.to_json(vifs))
        return vifs

    @staticmethod
    def _recheck_quota(ctx: RequestContext, flavor: Flavor, uuids: list[str]) -> None:
        """Concurrent boots may together have passed the quota: undo ours if so."""
        if not CONF.quota.recheck_quota:
            return
        try:
            quotas.recheck_instances(ctx.require_project_id(), flavor, len(uuids))
        except exception.TooManyInstances:
            for instance_uuid in uuids:
                instances.instance_destroy(instance_uuid)
            raise

    @staticmethod
    def parse_availability_zone(value: str | None) -> tuple[str | None, str | None,
                                                            str | None]:
        """Nova's `zone:host:node` forms ("zone:host", "zone::node", "zone:host:node")
        into (zone, forced host, forced node)."""
        if not value or ":" not in value:
            return value, None, None
        parts = value.split(":")
        if len(parts) == 2:
            return parts[0] or None, parts[1] or None, None
        if len(parts) == 3:
            return parts[0] or None, parts[1] or None, parts[2] or None
        raise exception.Invalid("Invalid input received: Unable to parse availability_zone")

    @staticmethod
    def _check_destination(host: str | None = None, node: str | None = None) -> None:
        """A 2.74 requested host/node must exist (and the node be on the host)."""
        if node:
            nodes = [n for n in compute_nodes.compute_node_get_all()
                     if n.hypervisor_hostname == node]
            if not nodes or (host and all(n.host != host for n in nodes)):
                raise exception.ComputeHostNotFound(host=host or node)
        elif host and not compute_nodes.compute_node_get_by_host(host):
            raise exception.ComputeHostNotFound(host=host)

    def delete(self, ctx: RequestContext, instance: Instance) -> None:
        """With reclaim_instance_interval set, a server that has run on an up host is
        soft-deleted (restorable until its compute reclaims it); any other is deleted at
        once, as is one in VERIFY_RESIZE (its confirmation, which runs on the source,
        would otherwise race the soft delete for the server's state)."""
        guards.check_lock(ctx, instance)
        if (CONF.reclaim_instance_interval > 0 and instance.launched_at is not None
                and instance.vm_state != states.RESIZED and instance.host
                and service_api.compute_is_up(instance.host)):
            instance = instances.instance_update(
                instance.uuid, {"task_state": states.SOFT_DELETING,
                                "deleted_at": timeutils.utcnow()},
                along=self._recorded(ctx, instance.uuid, "delete"))
            self.compute.soft_delete_instance(ctx, instance.host or "", instance)
            return
        self._delete(ctx, instance)

    def force_delete(self, ctx: RequestContext, instance: Instance) -> None:
        """Delete now, a soft-deleted server or any other with no task under way."""
        guards.check_lock(ctx, instance)
        guards.check_state(instance, "forceDelete", must_have_launched=False)
        self._delete(ctx, instance)

    def restore(self, ctx: RequestContext, instance: Instance) -> None:
        """Bring a soft-deleted server back, if the project's quota still has room for it
        (while soft-deleted it counted for nothing)."""
        guards.check_lock(ctx, instance)
        guards.check_state(instance, "restore", (states.SOFT_DELETED,))
        if instance.flavor is not None:
            quotas.check_instances(instance.project_id or "", instance.flavor, 1, 1)
        instance = instances.instance_update(
            instance.uuid, {"task_state": states.RESTORING, "deleted_at": None},
            expected_task_state=[None], along=self._recorded(ctx, instance.uuid, "restore"))
        self.compute.restore_instance(ctx, guards.check_host(instance), instance)

    @staticmethod
    def _recorded(ctx: RequestContext, instance_uuid: str, action: str
                  ) -> Callable[..., None]:
        """The action's record, to commit with the update that starts it."""
        return functools.partial(actions.add_action, ctx=ctx, instance_uuid=instance_uuid,
                                 action=action)

    def _delete(self, ctx: RequestContext, instance: Instance) -> None:
        instance_uuid = instance.uuid
        instance = instances.instance_update(
            instance_uuid, {"task_state": states.DELETING},
            along=self._recorded(ctx, instance_uuid, "delete"))
        if instance.vm_state == states.RESIZED:
            moves_api.MoveAPI().confirm_on_delete(ctx, instance)
        if instance.vm_state in (states.SHELVED, states.SHELVED_OFFLOADED):
            self._delete_shelve_image(ctx, instance)  # as Nova's delete does
        if instance.host and service_api.compute_is_up(instance.host):
            self.compute.terminate_instance(ctx, instance.host, instance)
            return
        # Not on a host (still scheduling, or failed), or the host is down: nothing runs
        # there that needs stopping, so delete the record here, as Nova's local delete does.
        LOG.info("Deleting instance %s locally (host: %s)", instance_uuid, instance.host)
        volumes_api.cleanup_locally(ctx, instance)
        if instance.network_info:
            self.network_api.deallocate_for_instance(ctx, instance_uuid,
                                                     instance.preserved_ports())
        instances.instance_destroy(instance_uuid)
        placement_client.free_allocations(ctx, instance_uuid)

    # --- power ----------------------------------------------------------------------

    def stop(self, ctx: RequestContext, instance: Instance) -> None:
        guards.check_lock(ctx, instance)
        host = guards.check_host(instance)
        guards.check_state(instance, "stop", states.ALLOW_STOP)
        instance = self._begin(ctx, instance, "stop",
                               {"task_state": states.POWERING_OFF, "progress": 0}, [None])
        self.compute.stop_instance(ctx, host, instance)

    def start(self, ctx: RequestContext, instance: Instance) -> None:
        host, instance = self._transition(ctx, instance, "start", states.ALLOW_START,
                                          states.POWERING_ON)
        self.compute.start_instance(ctx, host, instance)

    def reboot(self, ctx: RequestContext, instance: Instance, reboot_type: str) -> None:
        """A soft reboot asks the guest; a hard one power-cycles it, from more states and
        even over a soft reboot under way."""
        guards.check_lock(ctx, instance)
        host = guards.check_host(instance)
        if reboot_type == "SOFT":
            guards.check_state(instance, "reboot", states.ALLOW_SOFT_REBOOT)
            instance = self._begin(ctx, instance, "reboot", {"task_state": states.REBOOTING},
                                   [None])
        else:
            guards.check_state(instance, "reboot", states.ALLOW_HARD_REBOOT,
                               states.ALLOW_REBOOT_TASKS)
            instance = self._begin(ctx, instance, "reboot",
                                   {"task_state": states.REBOOTING_HARD},
                                   list(states.ALLOW_REBOOT_TASKS))
        self.compute.reboot_instance(ctx, host, instance, reboot_type)

    def pause(self, ctx: RequestContext, instance: Instance) -> None:
        host, instance = self._transition(ctx, instance, "pause", states.ALLOW_PAUSE,
                                          states.PAUSING)
        self.compute.pause_instance(ctx, host, instance)

    def unpause(self, ctx: RequestContext, instance: Instance) -> None:
        host, instance = self._transition(ctx, instance, "unpause", states.ALLOW_UNPAUSE,
                                          states.UNPAUSING)
        self.compute.unpause_instance(ctx, host, instance)

    def suspend(self, ctx: RequestContext, instance: Instance) -> None:
        host, instance = self._transition(ctx, instance, "suspend", states.ALLOW_SUSPEND,
                                          states.SUSPENDING)
        self.compute.suspend_instance(ctx, host, instance)

    def resume(self, ctx: RequestContext, instance: Instance) -> None:
        host, instance = self._transition(ctx, instance, "resume", states.ALLOW_RESUME,
                                          states.RESUMING)
        self.compute.resume_instance(ctx, host, instance)

    def trigger_crash_dump(self, ctx: RequestContext, instance: Instance) -> None:
        guards.check_lock(ctx, instance)
        host = guards.check_host(instance)
        guards.check_state(instance, "trigger_crash_dump", states.ALLOW_TRIGGER_CRASH_DUMP)
        actions.action_start(ctx, instance.uuid, "trigger_crash_dump")
        self.compute.trigger_crash_dump(ctx, host, instance)

    def set_admin_password(self, ctx: RequestContext, instance: Instance, password: str
                           ) -> None:
        """A call, as Nova's: the answer says whether the guest took the password, which
        is never stored."""
        guards.check_lock(ctx, instance)
        host = guards.check_host(instance)
        guards.check_state(instance, "changePassword", states.ALLOW_SET_ADMIN_PASSWORD)
        instance = self._begin(ctx, instance, "changePassword",
                               {"task_state": states.UPDATING_PASSWORD}, [None])
        try:
            self.compute.set_admin_password(ctx, host, instance, password)
        except MessagingTimeout:
            # Idle again, so the server is not left in PASSWORD; a compute answering
            # later finds its own end of the task taken and changes nothing more.
            with contextlib.suppress(exception.UnexpectedTaskStateError,
                                     exception.InstanceNotFound):
                instances.instance_update(instance.uuid, {"task_state": None},
                                          expected_task_state=[states.UPDATING_PASSWORD])
            raise exception.InstancePasswordSetFailed(
                instance=instance.uuid, reason=f"compute {host} did not answer") from None

    def reset_state(self, ctx: RequestContext, instance: Instance, state: str) -> None:
        """An admin's word over any state and any lock (Nova's admin_state_reset): the
        vm_state given, no task; whatever was under way loses its next guarded update."""
        instances.instance_update(
            instance.uuid, {"vm_state": state, "task_state": None},
            along=self._recorded(ctx, instance.uuid, "resetState"))

    def inject_network_info(self, ctx: RequestContext, instance: Instance) -> None:
        """The guests learn their addresses by DHCP and metadata, so there is nothing to
        write into them: what remains is the cached network info, refreshed."""
        guards.check_lock(ctx, instance)
        self.refresh_network_info(ctx, instance)

    def _transition(self, ctx: RequestContext, instance: Instance, action: str,
                    vm_states: tuple[str, ...], task_state: str) -> tuple[str, Instance]:
        """The checks and claim every idle-only action shares, as stop and start do; the
        instance's host and the instance as claimed."""
        guards.check_lock(ctx, instance)
        host = guards.check_host(instance)
        guards.check_state(instance, action, vm_states)
        return host, self._begin(ctx, instance, action, {"task_state": task_state}, [None])

    def power_update(self, ctx: RequestContext, instance: Instance, target: str) -> None:
        """Recorded as the start or stop it is (so `server event list` shows it), then
        handed to the instance's compute, which decides whether it applies."""
        action = "start" if target == states.POWER_ON_TAG else "stop"
        actions.action_start(ctx, instance.uuid, action)
        self.compute.power_update(ctx, guards.check_host(instance), instance, target)

    def extend_volume(self, ctx: RequestContext, instance: Instance, volume_id: str
                      ) -> None:
        """The volume-extended event: recorded as Nova's extend_volume action, then its
        compute shows the guest the new size."""
        actions.action_start(ctx, instance.uuid, "extend_volume")
        self.compute.extend_volume(ctx, guards.check_host(instance), instance, volume_id)

    def get_instance_diagnostics(self, ctx: RequestContext, instance: Instance
                                 ) -> Diagnostics:
        return self.compute.get_instance_diagnostics(ctx, guards.check_host(instance),
                                                     instance)

    def get_console_output(self, ctx: RequestContext, instance: Instance,
                           tail_length: int | None = None) -> str:
        """The last `tail_length` lines of the guest's console (all of it if None), read
        by the instance's compute host while the caller waits."""
        host = guards.check_host(instance)
        guards.reject_task_state(instance, "get_console_output", states.CONSOLE_REJECT_TASKS)
        return self.compute.get_console_output(ctx, host, instance, tail_length)

    def rebuild(self, ctx: RequestContext, instance: Instance, image_ref: str,
                answer: Callable[[], T], preserve_ephemeral: bool = False,
                metadata: dict[str, str] | None = None, **changes: Any) -> T:
        """Nova's rebuild on the server's own host: the image is checked as for a create,
        the other `changes` (name, description, key_name, user_data, hostname, access
        IPs) are saved with REBUILDING, and the compute makes the guest again. A new
        image replaces the one in the request spec, which later moves ask for.

        `answer()` (what the request answers) is read once all that is saved, before
        the compute is asked: Nova reads its answer after asking, when a real rebuild
        has hardly begun, but a fake compute's may have ended by then."""
        guards.check_lock(ctx, instance)
        host = guards.check_host(instance)
        guards.check_state(instance, "rebuild", states.ALLOW_REBUILD)
        image = self._image(ctx, image_ref)
        if instance.is_volume_backed:
            boot_volumes.check_rebuild_image(ctx, instance.uuid, image.id)
        elif instance.flavor is not None:
            self._check_flavor_fits_image(instance.flavor, image)
        values = dict(changes)
        if "key_name" in values:
            values["key_data"] = self._key_data(ctx, values["key_name"])
        if metadata is not None:
            quotas.check_metadata(metadata, instance.project_id)
        self._begin(ctx, instance, "rebuild", {
            **values, "image_ref": instance.image_ref if instance.is_volume_backed
            else image.id, "task_state": states.REBUILDING, "progress": 0}, [None])
        if metadata is not None:
            instance_details.metadata_update(instance.uuid, metadata, True, lambda _: None)
        if image.id != instance.image_ref and not instance.is_volume_backed:
            spec = request_specs.request_spec_get(instance.uuid)
            spec.image = image
            request_specs.request_spec_save(spec)
        answered = answer()
        self.compute.rebuild_instance(ctx, host, instances.instance_get(instance.uuid),
                                      image, preserve_ephemeral)
        return answered

    def snapshot(self, ctx: RequestContext, instance: Instance, name: str,
                 metadata: dict[str, str] | None = None) -> str:
        """createImage: the image (queued) now, its data from the compute; of a
        volume-backed server, snapshots of its volumes named by an image that holds
        no data (novalite.compute.boot_volumes.snapshot_volume_backed)."""
        if instance.is_volume_backed:
            guards.check_host(instance)
            guards.check_state(instance, "createImage", states.ALLOW_SNAPSHOT)
            return boot_volumes.snapshot_volume_backed(ctx, instance, name, metadata or {})
        host, instance, image = self._image_of(ctx, instance, "createImage", name,
                                               "snapshot", metadata or {},
                                               states.IMAGE_SNAPSHOT_PENDING)
        self.compute.snapshot_instance(ctx, host, instance, image.id)
        return image.id

    def backup(self, ctx: RequestContext, instance: Instance, name: str, backup_type: str,
               rotation: int, metadata: dict[str, str]) -> str:
        """createBackup: a snapshot marked as a backup of `backup_type`; the compute then
        keeps the newest `rotation` backups of that type of this server."""
        host, instance, image = self._image_of(ctx, instance, "createBackup", name,
                                               "backup",
                                               {**metadata, "backup_type": backup_type},
                                               states.IMAGE_BACKUP)
        self.compute.backup_instance(ctx, host, instance, image.id, backup_type, rotation)
        return image.id

    def _image_of(self, ctx: RequestContext, instance: Instance, action: str, name: str,
                  image_type: str, properties: dict[str, str], task_state: str
                  ) -> tuple[str, Instance, ImageRecord]:
        """The host, the instance claimed, and the image a snapshot fills, made now
        (queued); the image of a refused snapshot is not left behind. A lock does not
        stop it, as in Nova: a snapshot changes nothing of the server."""
        host = guards.check_host(instance)
        guards.check_state(instance, action, states.ALLOW_SNAPSHOT)
        if instance.is_volume_backed:
            raise exception.Invalid("Backup is not supported for volume-backed instances.")
        image = snapshots.create_image(ctx, instance, name, image_type, properties)
        try:
            claimed = self._begin(ctx, instance, action, {"task_state": task_state}, [None])
        except Exception:
            image_api.delete(image)
            raise
        return host, claimed, image

    def shelve(self, ctx: RequestContext, instance: Instance) -> None:
        """Park the server: its disk into a `<name>-shelved` image, its host kept until
        offloaded (novalite.compute.manager.shelve_instance). A volume-backed server's
        disk is its root volume, which stays: no image, offloaded at once (Nova's)."""
        guards.check_lock(ctx, instance)
        host = guards.check_host(instance)
        guards.check_state(instance, "shelve", states.ALLOW_SHELVE)
        if instance.is_volume_backed:
            instance = self._begin(ctx, instance, "shelve",
                                   {"task_state": states.SHELVING}, [None])
            self.compute.shelve_offload_instance(ctx, host, instance)
            return
        image = snapshots.create_image(ctx, instance, f"{instance.display_name}-shelved",
                                       "snapshot")
        try:
            instance = self._begin(ctx, instance, "shelve",
                                   {"task_state": states.SHELVING}, [None])
        except Exception:
            image_api.delete(image)
            raise
        self.compute.shelve_instance(ctx, host, instance, image.id)

    def shelve_offload(self, ctx: RequestContext, instance: Instance) -> None:
        host, instance = self._transition(ctx, instance, "shelveOffload",
                                          (states.SHELVED,), states.SHELVING_OFFLOADING)
        self.compute.shelve_offload_instance(ctx, host, instance)

    def unshelve(self, ctx: RequestContext, instance: Instance,
                 placement: UnshelvePlacement | None = None) -> None:
        """A shelved server powers on where it is; an offloaded one is scheduled again
        (narrowed by `placement`, which only an offloaded one takes) and spawned from
        its shelve image (a volume-backed one from its root volume, with the image
        metadata it was created with)."""
        guards.check_lock(ctx, instance)
        guards.check_state(instance, "unshelve", (states.SHELVED, states.SHELVED_OFFLOADED))
        if instance.vm_state == states.SHELVED:
            if placement is not None:
                raise exception.UnshelveInstanceInvalidState(instance_uuid=instance.uuid,
                                                             state="SHELVED")
            host = guards.check_host(instance)
            instance = self._begin(ctx, instance, "unshelve",
                                   {"task_state": states.POWERING_ON}, [None])
            self.compute.start_instance(ctx, host, instance)
            self._forget_shelve(ctx, instance)
            return
        placement = placement or UnshelvePlacement()
        if placement.availability_zone:
            self._check_zone_available(placement.availability_zone)
        if placement.host:
            self._check_unshelve_host(ctx, instance, placement)
        image = (request_specs.request_spec_get(instance.uuid).image
                 or ImageMeta(id="", properties={})) if instance.is_volume_backed else \
            self._image(ctx, instance.system_metadata.get("shelved_image_id", ""))
        self._begin(ctx, instance, "unshelve", {"task_state": states.UNSHELVING}, [None])
        self.conductor.unshelve_instance(ctx, instance.uuid, image, placement)

    @staticmethod
    def _check_zone_available(zone: str) -> None:
        available, _ = availability_zones.split(availability_zones.services_with_zones())
        if zone not in available:
            raise exception.Invalid("The requested availability zone is not available")

    @staticmethod
    def _check_unshelve_host(ctx: RequestContext, instance: Instance,
                             placement: UnshelvePlacement) -> None:
        host = placement.host or ""
        if not compute_nodes.compute_node_get_by_host(host):
            raise exception.ComputeHostNotFound(host=host)
        zone = (placement.availability_zone if placement.availability_zone or
                placement.unpin else request_specs.request_spec_get(instance.uuid)
                .availability_zone)
        if zone and availability_zones.compute_host_zone(host) != zone:
            raise exception.UnshelveHostNotInAZ(host=host, availability_zone=zone)

    def _forget_shelve(self, ctx: RequestContext, instance: Instance) -> None:
        """A server unshelved in place needs its shelve image no more."""
        kept = {k: v for k, v in instance.system_metadata.items()
                if k not in ("shelved_at", "shelved_image_id", "shelved_host")}
        instances.instance_update(instance.uuid, {"system_metadata": kept})
        self._delete_shelve_image(ctx, instance)

    @staticmethod
    def _delete_shelve_image(ctx: RequestContext, instance: Instance) -> None:
        image_id = instance.system_metadata.get("shelved_image_id")
        if image_id:
            with contextlib.suppress(image_errors.ImageError):
                image_api.delete(image_api.get(ctx, image_id))

    def rescue(self, ctx: RequestContext, instance: Instance, password: str | None,
               rescue_image_ref: str | None = None) -> None:
        """Boot the server from a rescue image (its own image unless one is named)."""
        guards.check_lock(ctx, instance)
        host = guards.check_host(instance)
        guards.check_state(instance, "rescue", states.ALLOW_RESCUE)
        if instance.is_volume_backed:
            raise exception.InstanceNotRescuable(
                instance_id=instance.uuid, reason="Cannot rescue a volume-backed instance")
        image = self._image(ctx, rescue_image_ref or instance.image_ref or "")
        instance = self._begin(ctx, instance, "rescue", {"task_state": states.RESCUING},
                               [None])
        self.compute.rescue_instance(ctx, host, instance, image, password)

    def unrescue(self, ctx: RequestContext, instance: Instance) -> None:
        host, instance = self._transition(ctx, instance, "unrescue",
                                          states.ALLOW_UNRESCUE, states.UNRESCUING)
        self.compute.unrescue_instance(ctx, host, instance)

    @staticmethod
    def _begin(ctx: RequestContext, instance: Instance, action: str, values: dict[str, Any],
               expected: list[str | None]) -> Instance:
        """Claim the instance for `action` (a racing request loses with a 409) and record
        the action the compute's events will attach to. The claimed copy is what the
        compute is to be sent, as Nova's API casts the instance it saved: the action's
        .start notification and first instance.update show the task state set here."""
        claimed = instances.instance_update(instance.uuid, values, expected_task_state=expected)
        actions.action_start(ctx, instance.uuid, action)
        return claimed
