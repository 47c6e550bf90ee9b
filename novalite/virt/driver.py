"""The compute driver contract, with Nova's method names, and loading drivers by name.

A driver registers under the entry-point group `novalite.virt.drivers`; `[DEFAULT]
compute_driver` picks one by name.
"""

from __future__ import annotations

import abc
import dataclasses
from collections.abc import Callable
from typing import Any

from novalite import exception, plugins
from novalite.conf import CONF
from novalite.objects.console import ConsoleEndpoint
from novalite.objects.device_metadata import DeviceMetadata
from novalite.objects.diagnostics import Diagnostics
from novalite.objects.flavor import Flavor
from novalite.objects.image import ImageMeta
from novalite.objects.instance import Instance
from novalite.objects.migration import Migration
from novalite.objects.network_info import VIF

NAMESPACE = "novalite.virt.drivers"

# Driver capabilities that placement knows as traits (Nova's CAPABILITY_TRAITS_MAP).
CAPABILITY_TRAITS = {
    "supports_image_type_aki": "COMPUTE_IMAGE_TYPE_AKI",
    "supports_image_type_ami": "COMPUTE_IMAGE_TYPE_AMI",
    "supports_image_type_ari": "COMPUTE_IMAGE_TYPE_ARI",
    "supports_image_type_iso": "COMPUTE_IMAGE_TYPE_ISO",
    "supports_image_type_qcow2": "COMPUTE_IMAGE_TYPE_QCOW2",
    "supports_image_type_raw": "COMPUTE_IMAGE_TYPE_RAW",
    "supports_image_type_vdi": "COMPUTE_IMAGE_TYPE_VDI",
    "supports_image_type_vhd": "COMPUTE_IMAGE_TYPE_VHD",
    "supports_image_type_vhdx": "COMPUTE_IMAGE_TYPE_VHDX",
    "supports_image_type_vmdk": "COMPUTE_IMAGE_TYPE_VMDK",
    "supports_image_type_ploop": "COMPUTE_IMAGE_TYPE_PLOOP",
    "supports_multiattach": "COMPUTE_VOLUME_MULTI_ATTACH",
}


@dataclasses.dataclass
class InstanceInfo:
    state: int  # a power state from novalite.objects.states


# Lifecycle transitions a driver reports on its own (Nova's virtevent names and values).
EVENT_LIFECYCLE_STARTED = 0
EVENT_LIFECYCLE_STOPPED = 1
EVENT_LIFECYCLE_PAUSED = 2
EVENT_LIFECYCLE_RESUMED = 3
EVENT_LIFECYCLE_SUSPENDED = 4


@dataclasses.dataclass(frozen=True)
class LifecycleEvent:
    """Something happened to a guest that nobody asked for (it crashed, shut itself
    down): the compute manager syncs that instance's power state at once."""

    instance_uuid: str
    transition: int


@dataclasses.dataclass(frozen=True)
class VolumeDevice:
    """A volume a guest is made with (Nova's driver_block_device as block_device_info
    lists it): connected already, its `connection_info` the volume service's
    {driver_volume_type, data} with `serial`, the volume's id, added."""

    connection_info: dict[str, Any]
    mount_device: str  # /dev/vda for the root volume
    boot_index: int | None = None
    disk_bus: str | None = None
    device_type: str | None = None
    tag: str | None = None  # the user's device tag, for the config drive's device list

    @property
    def serial(self) -> str:
        return str(self.connection_info["serial"])


def root_volume(block_device_info: list[VolumeDevice] | None) -> VolumeDevice | None:
    """The volume a volume-backed server boots from (boot index 0), if it has one."""
    return next((device for device in block_device_info or () if device.boot_index == 0),
                None)


@dataclasses.dataclass
class ProviderData:
    """A node's resource provider as the compute reports it to placement: inventory per
    resource class (placement's fields) and traits."""

    inventory: dict[str, dict[str, Any]]
    traits: set[str] = dataclasses.field(default_factory=set)


class ComputeDriver(abc.ABC):
    capabilities: dict[str, bool] = {}
    _event_listener: Callable[[LifecycleEvent], None] | None = None

    def register_event_listener(self, callback: Callable[[LifecycleEvent], None] | None
                                ) -> None:
        self._event_listener = callback

    def emit_event(self, event: LifecycleEvent) -> None:
        if self._event_listener is not None:
            self._event_listener(event)

    def init_host(self, host: str) -> None:  # noqa: B027 (optional hook)
        """Prepare the hypervisor before the service takes work."""

    def cleanup_host(self, host: str) -> None:  # noqa: B027 (optional hook)
        """Let go of the hypervisor as the service stops (guests keep running)."""

    @abc.abstractmethod
    def get_available_nodes(self, refresh: bool = False) -> list[str]:
        """Names of the hypervisor nodes this service manages."""

    @abc.abstractmethod
    def get_available_resource(self, nodename: str) -> dict[str, Any]:
        """Totals and hypervisor facts of a node (vcpus, memory_mb, local_gb, ...)."""

    @abc.abstractmethod
    def list_instances(self) -> list[str]:
        """Names of the instances the hypervisor runs."""

    @abc.abstractmethod
    def get_info(self, instance: Instance) -> InstanceInfo:
        """Power state of one instance; raises InstanceNotFound if the hypervisor lacks it."""

    @abc.abstractmethod
    def spawn(self, ctx: Any, instance: Instance, image_meta: ImageMeta | None,
              power_on: bool = True,
              block_device_info: list[VolumeDevice] | None = None) -> None:
        """Create and start the guest, with the volumes of `block_device_info` as its
        disks: a volume-backed server's root disk is its boot volume (root_volume), not
        one made from the image (`image_meta` is then the volume's image metadata:
        what kernel, ramdisk and properties it boots with); the others are attached as
        attach_volume would, and kept in what any later start is made from."""

    def guest_devices(self, instance: Instance) -> list[DeviceMetadata]:
        """The guest's NICs and disks where the guest sees them (untagged: the compute
        adds the users' tags); none from a driver that cannot tell, which leaves the
        guest's device metadata empty rather than wrong."""
        return []

    @abc.abstractmethod
    def destroy(self, ctx: Any, instance: Instance, destroy_disks: bool = True) -> None:
        """Stop the guest and remove it; a guest that is already gone is not an error."""

    def cleanup(self, ctx: Any, instance: Instance, destroy_disks: bool = True) -> None:  # noqa: B027
        """What destroy leaves to undo once the guest is stopped (its files when
        `destroy_disks`); drivers that keep nothing have nothing to do."""

    def power_off(self, instance: Instance, timeout: int = 0, retry_interval: int = 0) -> None:
        """Stop the guest: ask it to shut down, waiting up to `timeout` seconds (asking
        again every `retry_interval`), then force it off. `timeout=0` forces at once."""
        raise NotImplementedError()

    def power_on(self, ctx: Any, instance: Instance) -> None:
        """Start a stopped guest."""
        raise NotImplementedError()

    def reboot(self, ctx: Any, instance: Instance, reboot_type: str) -> None:
        """Restart the guest: "SOFT" asks it to, "HARD" power-cycles it (and recreates it
        from its disks if the hypervisor lost it)."""
        raise NotImplementedError()

    def pause(self, instance: Instance) -> None:
        """Freeze the guest in memory (power state PAUSED)."""
        raise NotImplementedError()

    def unpause(self, instance: Instance) -> None:
        raise NotImplementedError()

    def suspend(self, ctx: Any, instance: Instance) -> None:
        """Suspend the guest (power state SUSPENDED)."""
        raise NotImplementedError()

    def resume(self, ctx: Any, instance: Instance) -> None:
        """Run a suspended guest again."""
        raise NotImplementedError()

    def snapshot(self, ctx: Any, instance: Instance, image_id: str,
                 update_task_state: Callable[[str, str], None]) -> None:
        """Write the guest's disk, as it is now, as the data of the (queued) image
        `image_id`; `update_task_state(new, expected)` marks the steps (Nova's
        IMAGE_PENDING_UPLOAD, then IMAGE_UPLOADING)."""
        raise NotImplementedError()

    def rescue(self, ctx: Any, instance: Instance, image_meta: ImageMeta,
               rescue_password: str | None) -> None:
        """Boot the guest from `image_meta` with its own disk attached second, so a user
        can repair it (Nova's rescue); the guest's disk is left as it was."""
        raise NotImplementedError()

    def unrescue(self, ctx: Any, instance: Instance) -> None:
        """Boot the guest from its own disk again."""
        raise NotImplementedError()

    def power_update_event(self, instance: Instance, target_power_state: str) -> None:
        """Power the guest as someone outside novalite already did ("POWER_ON" or
        "POWER_OFF"): only drivers whose hosts are powered from outside have this."""
        raise NotImplementedError()

    def get_instance_diagnostics(self, instance: Instance) -> Diagnostics:
        """What the hypervisor measures of the running guest (CPU time, disk I/O,
        memory), for GET /servers/{id}/diagnostics."""
        raise NotImplementedError()

    def trigger_crash_dump(self, instance: Instance) -> None:
        """Send the guest a non-maskable interrupt (a kernel set to panic on it dumps)."""
        raise NotImplementedError()

    def set_admin_password(self, instance: Instance, image_meta: ImageMeta, new_pass: str
                           ) -> None:
        """Set the password of the guest's admin user (`os_admin_user`, root by default)
        through the guest's agent."""
        raise exception.AdminPasswordNotImplemented()

    def get_console_output(self, ctx: Any, instance: Instance) -> str:
        """The guest's serial console log so far (undecodable bytes replaced)."""
        raise NotImplementedError()

    def get_vnc_console(self, ctx: Any, instance: Instance) -> ConsoleEndpoint:
        """Where the guest's graphical console speaks RFB (VNC), for [vnc] enabled."""
        raise NotImplementedError()

    def get_serial_console(self, ctx: Any, instance: Instance) -> ConsoleEndpoint:
        """Where the guest's first serial port is a raw TCP stream, for
        [serial_console] enabled."""
        raise NotImplementedError()

    def get_host_uptime(self) -> str:
        """The host's `uptime` line, which os-hypervisors passes on to admins as is."""
        raise NotImplementedError()

    # --- volumes (the manager calls them while the instance's lock is held) -----------

    def get_volume_connector(self, instance: Instance) -> dict[str, Any]:
        """What the volume service needs to export a volume to this host (os-brick's
        connector properties, as Nova's drivers give them): at least `host` and `ip`."""
        raise NotImplementedError()

    def attach_volume(self, ctx: Any, connection_info: dict[str, Any], instance: Instance,
                      mountpoint: str | None, disk_bus: str | None = None,
                      device_type: str | None = None) -> None:
        """Connect the volume the volume service exported (`connection_info`, Cinder's
        driver_volume_type and data; `serial`, the volume's id, is what the guest sees
        as the disk's serial) to the guest: hot-plugged if it runs, and kept in what
        any later start of the guest (power on, hard reboot, host boot) is made from.
        Raises having attached nothing when it cannot."""
        raise NotImplementedError()

    def detach_volume(self, ctx: Any, connection_info: dict[str, Any], instance: Instance,
                      mountpoint: str | None) -> None:
        """Remove the volume (known by connection_info['serial']) from the guest, unplugged
        once a running guest has let go of it, and from its configuration. A volume the
        guest does not have is not an error (a detach retried after a crash). Raises
        DeviceDetachFailed, the volume still attached, when the guest does not release
        it in time."""
        raise NotImplementedError()

    def extend_volume(self, ctx: Any, connection_info: dict[str, Any], instance: Instance,
                      requested_size: int) -> None:
        """Show the guest its volume (connection_info['serial']) grown to
        `requested_size` bytes, the volume service having grown it (Nova's
        volume-extended event). A guest that is not running sees the size at its next
        start."""
        raise NotImplementedError()

    def volume_snapshot_create(self, ctx: Any, instance: Instance, volume_id: str,
                               create_info: dict[str, Any]) -> None:
        """Nova's assisted volume snapshot: the volume service, whose backend keeps the
        volume as a chain of qcow2 files, made create_info['new_file'] on top of the
        one the guest writes; the guest is moved onto it (the old file is the
        snapshot). Raises having moved nothing when it cannot, VolumeSnapshotNotSupported
        for a disk it cannot take one of."""
        raise NotImplementedError()

    def volume_snapshot_delete(self, ctx: Any, instance: Instance, volume_id: str,
                               snapshot_id: str, delete_info: dict[str, Any]) -> None:
        """Merge a file out of the guest's chain of the volume, the snapshot the
        volume service deletes (Cinder's remotefs delete_info): with
        merge_target_file None, the files between file_to_merge and the active one
        are pulled into the active one, which then sits on file_to_merge (None: on
        no file); otherwise file_to_merge is committed into merge_target_file, the
        file it sits on. Raises having merged nothing when it cannot."""
        raise NotImplementedError()

    # --- interfaces (the manager calls them while the instance's lock is held) --------

    def attach_interface(self, ctx: Any, instance: Instance, image_meta: ImageMeta,
                         vif: VIF) -> None:
        """Give the guest a NIC on the port `vif` (bound to this host), with the port's
        MAC: hot-plugged if it runs, and kept in what any later start of the guest is
        made from. Raises having plugged nothing when it cannot. A driver that can
        says `supports_attach_interface` in its capabilities."""
        raise NotImplementedError()

    def detach_interface(self, ctx: Any, instance: Instance, vif: VIF) -> None:
        """Remove the port's NIC from the guest (unplugged once a running guest has let
        go of it) and from its configuration. Raises, the NIC left in place, when the
        guest does not release it in time."""
        raise NotImplementedError()

    def resume_state_on_host_boot(self, ctx: Any, instance: Instance) -> None:
        """Bring back a guest that should run but whose hypervisor process is gone
        (after a host reboot), from its disks; Nova calls this from init_host when
        [DEFAULT] resume_guests_state_on_host_boot is set."""
        raise NotImplementedError()

    # --- resize and cold migration (Nova's names; the manager calls them in this order)

    def migrate_disk_and_power_off(self, ctx: Any, instance: Instance, dest_host: str,
                                   flavor: Flavor, timeout: int = 0,
                                   retry_interval: int = 0) -> str:
        """On the source: stop the guest and make its disks available to `dest_host`
        at the size of `flavor`, keeping the originals until confirm or revert (its
        volumes are not its disks: the manager hands them over). Raises
        ResizeError, having changed nothing, when the move cannot be made (a disk that
        would shrink). Returns the disk information finish_migration needs."""
        raise NotImplementedError()

    def finish_migration(self, ctx: Any, migration: Migration, instance: Instance,
                         disk_info: str, image_meta: ImageMeta | None,
                         resize_instance: bool,
                         block_device_info: list[VolumeDevice] | None = None,
                         power_on: bool = True) -> None:
        """On the destination: create the guest from the disks migrated to this host,
        with the instance's (new) flavor and the volumes of `block_device_info`
        (connected to this host now; a volume-backed guest's root among them), started
        if `power_on`."""
        raise NotImplementedError()

    def check_can_live_migrate_source(self, ctx: Any, instance: Instance) -> dict[str, Any]:
        """On the source, before the destination prepares: what the destination's
        pre_live_migration must know of the running guest to rebuild it as it is (Nova's
        migrate data from its source check); raises MigrationPreCheckError for a guest
        it cannot send."""
        return {}

    def pre_live_migration(self, ctx: Any, instance: Instance,
                           block_device_info: list[VolumeDevice] | None = None,
                           migrate_data: dict[str, Any] | None = None) -> dict[str, Any]:
        """On the destination, before the source starts: be ready to receive the guest
        the source's check_can_live_migrate_source described in `migrate_data`, with
        the volumes of `block_device_info` (connected to this host too: the source's
        guest still uses them through its own connections); what the source's
        live_migration needs (its migrate_data). Raises MigrationPreCheckError, having
        prepared nothing, for a guest it cannot take."""
        raise NotImplementedError()

    def rollback_live_migration_at_destination(self, ctx: Any, instance: Instance) -> None:
        """On the destination, after a failed or aborted live migration: drop what
        pre_live_migration prepared (if anything)."""
        raise NotImplementedError()

    def live_migration(self, ctx: Any, instance: Instance, dest: str,
                       migrate_data: dict[str, Any]) -> None:
        """On the source: move the running guest's memory and disks to `dest`; the
        source's guest is gone when this returns (Nova's live_migration, then its
        post-migration clean-up of the source)."""
        raise NotImplementedError()

    def post_live_migration_at_destination(
            self, ctx: Any, instance: Instance,
            block_device_info: list[VolumeDevice] | None = None) -> None:
        """On the destination: the guest that arrived runs here now, with the volumes of
        `block_device_info` as connected here."""
        raise NotImplementedError()

    def live_migration_force_complete(self, instance: Instance) -> None:
        """On the source, while live_migration runs: make the copy converge now (pause
        the guest, or switch to post-copy)."""
        raise NotImplementedError()

    def live_migration_abort(self, instance: Instance) -> None:
        """On the source, while live_migration runs: stop the copy; live_migration then
        raises LiveMigrationAborted with the guest still running here."""
        raise NotImplementedError()

    def confirm_migration(self, ctx: Any, migration: Migration, instance: Instance) -> None:
        """On the source: the move is kept; drop what the source kept for a revert. Idempotent."""
        raise NotImplementedError()

    def finish_revert_migration(self, ctx: Any, instance: Instance,
                                block_device_info: list[VolumeDevice] | None = None,
                                power_on: bool = True) -> None:
        """On the source: bring the original guest back from what it kept, with the
        volumes of `block_device_info` (connected to this host again, instead of those
        it had), started if `power_on` (the destination's guest is already
        destroyed)."""
        raise NotImplementedError()

    def cache_image(self, ctx: Any, image_id: str) -> bool:
        """Download the image into this host's image cache ahead of the boots that will
        need it (Nova's image pre-caching): True when it was downloaded now, False when
        the host had it already."""
        raise NotImplementedError()

    def update_provider_tree(self, provider: ProviderData, nodename: str) -> None:
        """Adjust what the node's provider offers before it goes to placement (Nova's
        hook of the same name): the resource tracker fills VCPU, MEMORY_MB and DISK_GB
        from get_available_resource; a driver adds traits or other resources. The base
        adds the traits of the driver's capabilities."""
        provider.traits |= {trait for capability, trait in CAPABILITY_TRAITS.items()
                            if self.capabilities.get(capability)}

    def node_uuid(self, nodename: str) -> str | None:
        """A stable uuid for the node, if the hypervisor has one."""
        return None


def network_connector(host: str) -> dict[str, Any]:
    """The connector of a host that reaches volume exports over the network at its
    [DEFAULT] my_ip (os-brick's connector properties, as Nova's drivers give them)."""
    return {"host": host, "ip": CONF.my_ip, "platform": "x86_64", "os_type": "linux",
            "multipath": False}


def load_driver(name: str, **kwargs: Any) -> ComputeDriver:
    found = plugins.namespace(NAMESPACE).get(name)
    if found is None:
        raise exception.VirtDriverNotFound(name=name,
                                           known=", ".join(plugins.known(NAMESPACE)))
    return found.load()(**kwargs)
