"""The qemu virt driver: real guests, one QEMU process per instance, a child of the
compute service, driven over its QMP socket (reference: qemu-guests.md).

Everything about an instance lives in its directory under `[DEFAULT] instances_path`:
the qcow2 overlay on the cached base image, the console log (appended across boots), the
QMP socket, the pidfile and the launch configuration. A restarted compute service finds
the guests it left running from those files and carries on with them. A volume-backed
guest (Nova's boot from volume) has no disk there: its root disk is its boot volume,
read over NBD like any attached volume; the volume service owns its data, so the
operations that would copy or move a disk of the directory refuse it.

A watcher thread notices a guest whose QEMU went away without being asked (it crashed,
was killed, or the guest powered itself off) and tells the compute manager through a
lifecycle event, which syncs the instance's power state at once.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import os
import re
import shutil
import socket
import subprocess
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

from novalite import affinity, exception, strutils
from novalite.clients import glance
from novalite.conf import CONF
from novalite.datapath import bridges, names, taps
from novalite.objects import device_metadata, states
from novalite.objects.console import ConsoleEndpoint
from novalite.objects.diagnostics import Diagnostics
from novalite.objects.flavor import Flavor
from novalite.objects.image import ImageMeta
from novalite.objects.instance import Instance
from novalite.objects.migration import Migration
from novalite.objects.network_info import VIF
from novalite.virt import driver
from novalite.virt.qemu import (
    accel,
    config_drive,
    consoles,
    diagnostics,
    disk,
    guest_agent,
    guest_image,
    images,
    nbd,
)
from novalite.virt.qemu import config as config_module
from novalite.virt.qemu import live_migration as migrating
from novalite.virt.qemu import nics as guest_nics
from novalite.virt.qemu import volumes as guest_volumes
from novalite.virt.qemu.config import GuestConfig, GuestPaths
from novalite.virt.qemu.guest import Guest, GuestLaunchFailed
from novalite.virt.qemu.qmp import QMPError
from novalite.virt.qemu.security_groups import SecurityGroupAgent

LOG = logging.getLogger(__name__)

_NODE_NAMESPACE = uuid.UUID("1f0c5e7a-93b4-4d2e-9a61-6b3f8e2d4c70")
MAX_CONSOLE_BYTES = 100 * 1024  # as Nova's libvirt driver
WATCH_INTERVAL = 1.0
SUSPEND_TIMEOUT = 120.0
PACKAGES = "qemu-system-x86 qemu-utils"
# Where a resized or cold-migrated guest's directory waits for confirm or revert (Nova's
# libvirt driver keeps `<instance dir>_resize` the same way).
RESIZE_SUFFIX = "_resize"


class HypervisorUnavailable(exception.ConfigInvalid):
    """The host cannot run guests as configured: the service refuses to start (the
    commands exit with the message, not a traceback)."""

    msg_fmt = "%(reason)s"


class QemuDriver(driver.ComputeDriver):
    capabilities = {
        "supports_image_type_qcow2": True,
        "supports_image_type_raw": True,
        "supports_image_type_aki": True,
        "supports_image_type_ari": True,
        "supports_image_type_ami": True,
        "supports_multiattach": True,  # a shareable virtio-blk disk: novalite.virt.qemu.volumes
        "supports_attach_interface": True,  # on a PCIe root port: novalite.virt.qemu.nics
    }

    def __init__(self, instances_dir: str | None = None) -> None:
        """`instances_dir`: this compute's own directory of guests, when computes share a
        machine (the all-in-one's QEMU hosts); else instances_path."""
        self.instances_dir = instances_dir
        self.host = ""
        self.accel = "tcg"
        self.emulator = ""
        self._guests: dict[str, Guest] = {}
        self._live: dict[str, migrating.Control] = {}  # migrations this source runs
        self._watched: set[str] = set()  # guests whose unasked exit is an event
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._watcher: threading.Thread | None = None
        self.security_groups = SecurityGroupAgent("")

    # --- host ---------------------------------------------------------------------------

    def init_host(self, host: str) -> None:
        """Refuse to start without QEMU; choose the accelerator; adopt running guests."""
        self.host = host
        self.security_groups = SecurityGroupAgent(host)
        self.emulator = shutil.which(CONF.qemu.emulator) or ""
        missing = [binary for binary in (CONF.qemu.emulator, CONF.qemu.qemu_img,
                                         CONF.qemu.qemu_nbd) if not shutil.which(binary)]
        if missing:
            raise HypervisorUnavailable(reason=(
                f"The qemu virt driver needs {' and '.join(missing)}, which is not "
                f"installed: apt-get install {PACKAGES} (or set [qemu] emulator / "
                "qemu_img to their paths)"))
        os.makedirs(self._root(), exist_ok=True)
        built = guest_image.load(guest_image.default_directory())
        self.accel = accel.choose(self.emulator, CONF.libvirt.virt_type,
                                  CONF.qemu.probe_timeout,
                                  str(built.kernel) if built is not None else None)
        for uuid_ in self.list_instances():
            guest = self._guest(uuid_)
            if guest.alive():
                LOG.info("Adopted running guest %s (QEMU pid %s)", uuid_, guest.pid())
                self._watch(uuid_)
        self._watcher = threading.Thread(target=self._watch_loop, daemon=True,
                                         name=f"qemu-watcher-{host}")
        self._watcher.start()
        self.security_groups.start()

    def cleanup_host(self, host: str) -> None:
        """Stop watching; the guests keep running (a restarted service adopts them)."""
        self._stop.set()
        self.security_groups.stop()

    def get_available_nodes(self, refresh: bool = False) -> list[str]:
        return [self.host]

    def get_host_uptime(self) -> str:
        """The host's own `uptime` line, as Nova's libvirt driver reports it."""
        with affinity.unpinned():
            return subprocess.run(["uptime"], capture_output=True, text=True, check=True,
                                  timeout=10).stdout.rstrip("\n")

    def node_uuid(self, nodename: str) -> str:
        return str(uuid.uuid5(_NODE_NAMESPACE, f"{socket.gethostname()}/{nodename}"))

    def cache_image(self, ctx: Any, image_id: str) -> bool:
        return images.precache(ctx, glance.show(ctx, image_id))

    def get_available_resource(self, nodename: str) -> dict[str, Any]:
        vcpus = os.cpu_count() or 1
        usage = shutil.disk_usage(self._root())
        virt = "kvm" if self.accel == "kvm" else "qemu"
        return {
            "vcpus": vcpus,
            "memory_mb": _host_memory_mb(),
            "local_gb": usage.total // disk.GiB,
            "hypervisor_type": "QEMU",
            "hypervisor_version": _qemu_version(self.emulator),
            "hypervisor_hostname": nodename,
            "cpu_info": json.dumps({"arch": "x86_64", "model": CONF.qemu.cpu_model,
                                    "vendor": "QEMU", "features": [],
                                    "topology": {"sockets": 1, "cores": vcpus,
                                                 "threads": 1}}),
            "supported_instances": [["x86_64", virt, "hvm"]],
            "disk_available_least": usage.free // disk.GiB,
        }

    # --- instances ----------------------------------------------------------------------

    def _root(self) -> str:
        return self.instances_dir or images.instances_path()

    def _dir(self, uuid_: str) -> str:
        return os.path.join(self._root(), uuid_)

    def _guest(self, uuid_: str) -> Guest:
        with self._lock:
            guest = self._guests.get(uuid_)
            if guest is None:
                guest = self._guests[uuid_] = Guest(uuid_, self._dir(uuid_),
                                                    names.host_namespace(self.host))
            return guest

    def _existing(self, instance: Instance) -> Guest:
        guest = self._guest(instance.uuid)
        if not os.path.exists(guest.paths.config):
            raise exception.InstanceNotFound(instance_id=instance.uuid)
        return guest

    def list_instances(self) -> list[str]:
        root = self._root()
        if not os.path.isdir(root):
            return []
        return sorted(name for name in os.listdir(root) if not name.endswith(RESIZE_SUFFIX)
                      and os.path.exists(os.path.join(root, name, "guest.json")))

    def get_info(self, instance: Instance) -> driver.InstanceInfo:
        return driver.InstanceInfo(state=self._existing(instance).power_state())

    def guest_devices(self, instance: Instance) -> list[device_metadata.DeviceMetadata]:
        """Read from the launch configuration, which puts each device where it says."""
        guest = self._existing(instance)
        return config_module.guest_devices(GuestConfig.load(guest.paths.config))

    @contextlib.contextmanager
    def _new_guest(self, ctx: Any, instance: Instance) -> Iterator[Guest]:
        """A directory made for the instance's guest on this host (a spawn, or one
        arriving by a move); if what is done in it fails, its QEMU is stopped and the
        directory removed again."""
        guest = self._guest(instance.uuid)
        if os.path.exists(guest.paths.config):
            raise exception.InstanceExists(name=instance.uuid)
        os.makedirs(guest.paths.directory, exist_ok=True)
        try:
            yield guest
        except Exception:
            guest.kill()
            self.cleanup(ctx, instance)
            raise

    def spawn(self, ctx: Any, instance: Instance, image_meta: ImageMeta | None,
              power_on: bool = True,
              block_device_info: list[driver.VolumeDevice] | None = None) -> None:
        """Booted from an overlay on the image, or from the root volume of
        `block_device_info`; its other volumes on PCIe ports from the start."""
        root = driver.root_volume(block_device_info)
        if instance.flavor is None or (image_meta is None and root is None):
            raise _abort(instance, "the qemu driver boots from an image or a root volume")
        with self._new_guest(ctx, instance) as guest:
            if root is not None:
                config = self._volume_backed(ctx, instance, image_meta, root)
            else:
                assert image_meta is not None
                config = self._prepare(ctx, instance, image_meta, guest)
            try:
                _set_volumes(config, block_device_info or [])
            except exception.NovaliteException as exc:  # it would fail on any host
                raise _abort(instance, exc.format_message()) from exc
            instance.device_metadata = device_metadata.tagged(
                config_module.guest_devices(config), instance.nic_tags(),
                {device.serial: device.tag for device in block_device_info or ()})
            self._configure(instance, guest, config)
            if power_on:
                self._launch(guest)

    def _prepare(self, ctx: Any, instance: Instance, image_meta: ImageMeta,
                 guest: Guest) -> GuestConfig:
        """Base images into the cache, the overlay on them, and the launch configuration.
        An image that cannot boot this flavor aborts the build (no host would do)."""
        def abort(reason: str) -> exception.BuildAbortException:
            return _abort(instance, reason)

        flavor = instance.flavor
        assert flavor is not None
        try:
            image, base, kernel, ramdisk = self._boot_files(ctx, image_meta.id,
                                                            image_meta.properties)
        except (exception.ImageNotFound, glance.ImageUnusable) as exc:
            raise abort(exc.format_message()) from exc
        try:
            found = disk.info(base)
        except disk.DiskError as exc:
            raise abort(f"image {image_meta.id} is not a disk image QEMU can read: {exc}") \
                from exc
        fmt, virtual_size = found["format"], int(found["virtual-size"])
        if fmt not in ("raw", "qcow2"):
            raise abort(f"image {image_meta.id} is in {fmt} format; this driver boots "
                        "raw and qcow2 disks")
        if flavor.root_gb and virtual_size > flavor.root_gb * disk.GiB:
            raise abort(f"Flavor's disk is too small for requested image. Flavor disk is "
                        f"{flavor.root_gb * disk.GiB} bytes, image is {virtual_size} bytes.")
        if not kernel and not disk.is_bootable(base, fmt):
            raise abort(f"image {image_meta.id} is not bootable: its disk has no boot "
                        "sector and the image names no kernel_id")
        self._overlay(base, fmt, virtual_size, flavor, guest.paths.disk)
        return self._guest_config(instance, image, kernel, ramdisk, image_meta.properties)

    def _volume_backed(self, ctx: Any, instance: Instance, image_meta: ImageMeta | None,
                       root: driver.VolumeDevice, probe: bool = True) -> GuestConfig:
        """The launch configuration of a guest whose root disk is `root` (which
        _set_volumes puts in it); no disk file.
        The kernel and ramdisk are those its image metadata names (Cinder keeps the
        properties of the image a volume was made from, which may be gone since, so
        the image itself is not read); without a kernel, the volume must be one a BIOS
        boots (not `probe`d for a guest that runs already: a live migration's). Neither
        a volume QEMU cannot take nor one that cannot boot would do on another host: both
        abort the build."""
        properties = image_meta.properties if image_meta is not None else {}
        try:
            volume = _volume(root, None)
        except exception.NovaliteException as exc:
            raise _abort(instance, exc.format_message()) from exc
        try:
            kernel, ramdisk = self._kernel_files(ctx, {}, properties)
        except (exception.ImageNotFound, glance.ImageUnusable) as exc:
            raise _abort(instance, exc.format_message()) from exc
        if probe and kernel is None and not _bootable(volume):
            raise _abort(instance, f"volume {volume.serial} is not bootable: its disk has no "
                                   "boot sector and its image metadata names no kernel_id")
        return self._guest_config(instance, {}, kernel, ramdisk, properties)

    @staticmethod
    def _overlay(base: str, fmt: str, virtual_size: int, flavor: Flavor, path: str) -> None:
        """The instance's qcow2 on the cached base, grown to the flavor's root disk when
        that is larger than the image."""
        size = flavor.root_gb * disk.GiB
        disk.create_overlay(base, fmt, path, size if size > virtual_size else None)

    @staticmethod
    def _boot_files(ctx: Any, image_id: str, properties: dict[str, Any]
                    ) -> tuple[dict[str, Any], str, str | None, str | None]:
        """The image's record and, in this host's base cache, its disk and the kernel
        and ramdisk it names."""
        image = glance.show(ctx, image_id)
        base = images.fetch(ctx, image)
        kernel, ramdisk = QemuDriver._kernel_files(ctx, image, properties)
        return image, base, kernel, ramdisk

    @staticmethod
    def _kernel_files(ctx: Any, image: dict[str, Any], properties: dict[str, Any]
                      ) -> tuple[str | None, str | None]:
        """In this host's base cache, the kernel and ramdisk the image's record or its
        properties name (a direct kernel boot), if they name any."""
        kernel_id = image.get("kernel_id") or properties.get("kernel_id")
        ramdisk_id = image.get("ramdisk_id") or properties.get("ramdisk_id")
        kernel = images.fetch(ctx, glance.show(ctx, kernel_id)) if kernel_id else None
        ramdisk = images.fetch(ctx, glance.show(ctx, ramdisk_id)) if ramdisk_id else None
        return kernel, ramdisk

    def _guest_config(self, instance: Instance, image: dict[str, Any], kernel: str | None,
                      ramdisk: str | None, properties: dict[str, Any]) -> GuestConfig:
        """A guest made anew: each NIC on a root port of its own (novalite.virt.qemu.
        nics), then [libvirt] num_pcie_ports spare ones."""
        flavor = instance.flavor
        assert flavor is not None
        nics = [_nic(vif) for vif in instance.network_info]
        return GuestConfig(
            uuid=instance.uuid, memory_mb=flavor.memory_mb, vcpus=flavor.vcpus,
            accel=self.accel, machine=CONF.qemu.machine_type, cpu_model=CONF.qemu.cpu_model,
            kernel=kernel, ramdisk=ramdisk,
            kernel_args=str(image.get("os_command_line")
                            or properties.get("os_command_line") or ""),
            nics=nics, config_drive=bool(instance.config_drive),
            pcie_ports=guest_nics.give_ports(nics, CONF.libvirt.num_pcie_ports),
            guest_agent=_runs_guest_agent(properties))

    @staticmethod
    def _configure(instance: Instance, guest: Guest, config: GuestConfig) -> None:
        """The launch configuration saved, with the config drive it names written first
        (from the instance as it is now: a move or rescue writes it afresh)."""
        if config.config_drive:
            config_drive.write(instance, guest.paths.config_drive)
        config.save(guest.paths.config)

    # --- network ------------------------------------------------------------------------

    def _plug(self, guest: Guest, bound_here: bool = True) -> None:
        """The taps of the guest's NICs on their networks' bridges on this host (made if
        missing: a host's namespace does not survive the machine's reboot), filtered by
        their security groups before the guest can send, and confirmed up by the
        network service when their ports are `bound_here` (a live migration's
        destination plugs before the ports move to it: it filters them as expected
        ones, and its agent reports them once they moved)."""
        nics = GuestConfig.load(guest.paths.config).nics
        for nic in nics:
            _plug_tap(self.host, nic)
        if nics and bound_here:
            self.security_groups.confirm([nic["port_id"] for nic in nics])
        elif nics:
            self.security_groups.expect([nic["port_id"] for nic in nics])

    def _unplug(self, paths: GuestPaths) -> None:
        """The taps of a guest that no longer runs here; bridges left without ports go."""
        with contextlib.suppress(FileNotFoundError):
            for nic in GuestConfig.load(paths.config).nics:
                bridges.unplug(self.host, names.port_device(nic["port_id"]))

    def _launch(self, guest: Guest, incoming: str | None = None) -> None:
        self._plug(guest)
        try:
            guest.launch(self.emulator, incoming)
        except GuestLaunchFailed as exc:
            raise exception.NovaliteException(
                f"Guest {guest.uuid} did not start: {exc}") from exc
        self._watch(guest.uuid)

    def destroy(self, ctx: Any, instance: Instance, destroy_disks: bool = True) -> None:
        guest = self._guest(instance.uuid)
        self._unwatch(guest.uuid)
        guest.kill()
        self.cleanup(ctx, instance, destroy_disks)

    def cleanup(self, ctx: Any, instance: Instance, destroy_disks: bool = True) -> None:
        """Forget the guest; with `destroy_disks`, remove its directory (overlay, console
        log, socket, pidfile, saved memory). Its volumes, a root volume too, are only
        read over NBD: their data is the volume service's and stays."""
        self._unwatch(instance.uuid)
        with self._lock:
            guest = self._guests.pop(instance.uuid, None)
        self._unplug(guest.paths if guest else GuestPaths(self._dir(instance.uuid)))
        if destroy_disks:
            shutil.rmtree(guest.paths.directory if guest else self._dir(instance.uuid),
                          ignore_errors=True)

    # --- power --------------------------------------------------------------------------

    def power_off(self, instance: Instance, timeout: int = 0, retry_interval: int = 0) -> None:
        guest = self._existing(instance)
        self._unwatch(guest.uuid)
        if timeout and guest.alive() and self._clean_shutdown(guest, timeout, retry_interval):
            return
        guest.kill()

    def _clean_shutdown(self, guest: Guest, timeout: float, retry_interval: float) -> bool:
        """ACPI power button, pressed again every `retry_interval`, until the guest is off
        or `timeout` passes."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                guest.qmp("system_powerdown")
            except QMPError:
                return not guest.alive()
            wait = min(retry_interval or timeout, deadline - time.monotonic())
            if guest.wait_exit(max(wait, 0)):
                LOG.info("Guest %s shut down cleanly", guest.uuid)
                return True
        LOG.warning("Guest %s did not shut down within %ss; powering it off", guest.uuid,
                    timeout)
        return False

    def power_on(self, ctx: Any, instance: Instance) -> None:
        guest = self._existing(instance)
        if os.path.exists(guest.paths.saved_state):
            self.resume(ctx, instance)
        elif not guest.alive():
            self._launch(guest)

    def reboot(self, ctx: Any, instance: Instance, reboot_type: str) -> None:
        """SOFT: ACPI shut down, then start again; a guest that does not shut down within
        shutdown_timeout gets a hard reboot. HARD: power-cycle."""
        guest = self._existing(instance)
        if reboot_type == "SOFT" and guest.power_state() == states.RUNNING:
            self._unwatch(guest.uuid)
            if self._clean_shutdown(guest, CONF.shutdown_timeout,
                                    CONF.compute.shutdown_retry_interval):
                self._launch(guest)
                return
            self._watch(guest.uuid)
        self._hard_reboot(guest)

    def _hard_reboot(self, guest: Guest) -> None:
        """Power-cycle, as Nova's libvirt driver does (destroy, then create from the
        disk): a reset inside QEMU would end it anyway, since guests run -no-reboot so
        that a panicking guest stops instead of looping."""
        self._unwatch(guest.uuid)
        guest.kill()
        if os.path.exists(guest.paths.saved_state):
            os.unlink(guest.paths.saved_state)  # a hard reboot discards a saved memory
        self._launch(guest)

    def pause(self, instance: Instance) -> None:
        self._running(instance).qmp("stop")

    def unpause(self, instance: Instance) -> None:
        self._running(instance).qmp("cont")

    def trigger_crash_dump(self, instance: Instance) -> None:
        self._running(instance).qmp("inject-nmi")

    def set_admin_password(self, instance: Instance, image_meta: ImageMeta, new_pass: str
                           ) -> None:
        """As Nova's libvirt driver under QEMU: only through the guest agent its image
        declared when the guest was made (hw_qemu_guest_agent: the guest has its
        channel), for `os_admin_user` (root, or Administrator on Windows). An agent that
        does not answer is Nova's not implemented; an agent's error, a failure."""
        guest = self._running(instance)
        if not GuestConfig.load(guest.paths.config).guest_agent:
            raise exception.QemuGuestAgentNotEnabled()
        properties = image_meta.properties
        user = properties.get("os_admin_user") or (
            "Administrator" if properties.get("os_type") == "windows" else "root")
        try:
            guest_agent.set_user_password(guest.paths.guest_agent, str(user), new_pass)
        except guest_agent.AgentUnresponsive as exc:
            LOG.info("No guest agent answered for %s: %s", instance.uuid, exc)
            raise exception.AdminPasswordNotImplemented() from None

    def _running(self, instance: Instance) -> Guest:
        guest = self._existing(instance)
        if not guest.alive():
            raise exception.InstanceNotRunning(instance_id=instance.uuid)
        return guest

    def suspend(self, ctx: Any, instance: Instance) -> None:
        """Nova's managed save: the guest's memory goes to a file in its directory and
        its QEMU ends, so a suspended guest holds no host memory."""
        guest = self._running(instance)
        guest.qmp("stop")
        guest.qmp("migrate", uri=f"exec:cat > {_quote(guest.paths.saved_state)}")
        deadline = time.monotonic() + SUSPEND_TIMEOUT
        while True:
            progress = guest.qmp("query-migrate")
            status = progress.get("status") if isinstance(progress, dict) else None
            if status == "completed":
                break
            if status in ("failed", "cancelled") or time.monotonic() > deadline:
                guest.qmp("cont")
                raise exception.NovaliteException(
                    f"Saving the memory of guest {guest.uuid} failed ({status})")
            time.sleep(0.1)
        self._unwatch(guest.uuid)
        guest.kill()

    def resume(self, ctx: Any, instance: Instance) -> None:
        guest = self._existing(instance)
        if guest.alive():
            return
        if not os.path.exists(guest.paths.saved_state):
            self._launch(guest)
            return
        self._launch(guest, incoming=f"exec:cat {_quote(guest.paths.saved_state)}")
        deadline = time.monotonic() + SUSPEND_TIMEOUT
        while guest.status() in ("inmigrate", "prelaunch"):
            if time.monotonic() > deadline:
                raise exception.NovaliteException(
                    f"Restoring the memory of guest {guest.uuid} did not finish")
            time.sleep(0.1)
        if guest.status() != "running":
            guest.qmp("cont")
        os.unlink(guest.paths.saved_state)

    def resume_state_on_host_boot(self, ctx: Any, instance: Instance) -> None:
        guest = self._existing(instance)
        if not guest.alive():
            self._hard_reboot(guest)

    def snapshot(self, ctx: Any, instance: Instance, image_id: str,
                 update_task_state: Callable[[str, str], None]) -> None:
        """The disk flattened into a standalone qcow2 while a running guest is paused (a
        consistent copy, as Nova's cold snapshot), then uploaded. A volume-backed server's
        snapshot is one of its volume, which the volume service makes (Nova's API asks
        Cinder and never the driver)."""
        guest = self._existing(instance)
        root = _root_serial(guest)
        if root is not None:
            raise exception.NovaliteException(
                f"Instance {instance.uuid} boots from volume {root}: its snapshot is a "
                "snapshot of that volume, made by the volume service; the qemu driver "
                "snapshots only disks of its own.")
        update_task_state(states.IMAGE_PENDING_UPLOAD, states.IMAGE_SNAPSHOT)
        copy = os.path.join(guest.paths.directory, f"snapshot-{image_id}.qcow2")
        pause = guest.alive() and guest.status() == "running"
        if pause:
            guest.qmp("stop")
        try:
            disk.flatten(guest.paths.disk, copy)
        finally:
            if pause:
                guest.qmp("cont")
        try:
            update_task_state(states.IMAGE_UPLOADING, states.IMAGE_PENDING_UPLOAD)
            with open(copy, "rb") as data:
                glance.upload(ctx, image_id, iter(lambda: data.read(glance.CHUNK), b""),
                              disk_format="qcow2")
        finally:
            os.unlink(copy)

    # --- rescue -------------------------------------------------------------------------

    def rescue(self, ctx: Any, instance: Instance, image_meta: ImageMeta,
               rescue_password: str | None) -> None:
        """The guest off; booted from an overlay on the rescue image, with its own disk
        attached second (/dev/vdb) as it was, and its volumes; its configuration kept for
        unrescue. Not a volume-backed guest: Nova rescues those only with stable device
        rescue (microversion 2.87), which this driver does not do."""
        guest = self._existing(instance)
        root = _root_serial(guest)
        if root is not None:
            raise exception.InstanceNotRescuable(
                instance_id=instance.uuid,
                reason=f"it boots from volume {root}, and the qemu driver rescues only "
                       "guests booted from an image")
        self._unwatch(guest.uuid)
        guest.kill()
        image, base, kernel, ramdisk = self._boot_files(ctx, image_meta.id,
                                                        image_meta.properties)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(guest.paths.rescue_disk)
        disk.create_overlay(base, disk.info(base)["format"], guest.paths.rescue_disk, None)
        if not os.path.exists(guest.paths.unrescued_config):
            shutil.copy(guest.paths.config, guest.paths.unrescued_config)
        own = GuestConfig.load(guest.paths.unrescued_config)
        config = self._guest_config(instance, image, kernel, ramdisk, image_meta.properties)
        config.rescue = True
        # its devices kept where they are while rescued
        config.pcie_ports, config.volumes, config.nics = own.pcie_ports, own.volumes, own.nics
        self._configure(instance, guest, config)
        self._launch(guest)

    def unrescue(self, ctx: Any, instance: Instance) -> None:
        guest = self._existing(instance)
        self._unwatch(guest.uuid)
        guest.kill()
        if os.path.exists(guest.paths.unrescued_config):
            os.replace(guest.paths.unrescued_config, guest.paths.config)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(guest.paths.rescue_disk)
        self._launch(guest)

    # --- volumes --------------------------------------------------------------------------

    def get_volume_connector(self, instance: Instance) -> dict[str, Any]:
        """The volume service exports to this host's address ([DEFAULT] my_ip)."""
        return driver.network_connector(self.host)

    def attach_volume(self, ctx: Any, connection_info: dict[str, Any], instance: Instance,
                      mountpoint: str | None, disk_bus: str | None = None,
                      device_type: str | None = None) -> None:
        """A virtio disk on a free PCIe port (novalite.virt.qemu.volumes): hot-plugged
        into a running guest, and in its configuration either way. Asked again for a
        volume the guest has, it does nothing."""
        _check_virtio_disk(disk_bus, device_type)
        guest = self._existing(instance)
        config = GuestConfig.load(guest.paths.config)
        if connection_info["serial"] in _serials(config):
            return
        port = guest_volumes.free_port(config.pcie_ports, config.volumes + config.nics)
        volume = guest_volumes.Volume.of(connection_info, port)
        if guest.alive():
            guest_volumes.plug(guest, volume)
        config.volumes.append(dataclasses.asdict(volume))
        config.save(guest.paths.config)
        LOG.info("Volume %s attached to guest %s on %s", volume.serial, guest.uuid,
                 guest_volumes.port_id(port))

    def extend_volume(self, ctx: Any, connection_info: dict[str, Any], instance: Instance,
                      requested_size: int) -> None:
        """Grown in a running guest (novalite.virt.qemu.volumes.grow); a guest that is
        off opens the export, with its new size, when it starts."""
        guest = self._existing(instance)
        if guest.alive():
            guest_volumes.grow(guest, connection_info["serial"], requested_size)
        LOG.info("Volume %s of guest %s extended to %d bytes", connection_info["serial"],
                 guest.uuid, requested_size)

    def volume_snapshot_create(self, ctx: Any, instance: Instance, volume_id: str,
                               create_info: dict[str, Any]) -> None:
        self._refuse_volume_snapshot(instance, volume_id)

    def volume_snapshot_delete(self, ctx: Any, instance: Instance, volume_id: str,
                               snapshot_id: str, delete_info: dict[str, Any]) -> None:
        self._refuse_volume_snapshot(instance, volume_id)

    def _refuse_volume_snapshot(self, instance: Instance, volume_id: str) -> None:
        """Every volume reaches a guest here as an NBD network disk, whose chain of
        files (if any) is the volume service's, out of the guest's reach: Nova's
        libvirt driver takes assisted snapshots of a volume's file or of a netfs
        share only, and refuses any other disk; so does this one, the guest untouched."""
        config = GuestConfig.load(self._existing(instance).paths.config)
        attached = [*config.volumes, *([config.root_volume] if config.root_volume else [])]
        if not any(volume["serial"] == volume_id for volume in attached):
            raise exception.NovaliteException("Found no disk to snapshot.")
        raise exception.VolumeSnapshotNotSupported(volume_id=volume_id, protocol="nbd")

    def detach_volume(self, ctx: Any, connection_info: dict[str, Any], instance: Instance,
                      mountpoint: str | None) -> None:
        """Unplugged from a running guest once it released it (whether or not the
        configuration has it: a compute killed mid-attach may have plugged it only),
        then out of the configuration. Never the root volume: the guest would lose its
        root disk (Nova's API refuses it too)."""
        guest = self._guest(instance.uuid)
        if not os.path.exists(guest.paths.config):
            return
        serial = connection_info["serial"]
        config = GuestConfig.load(guest.paths.config)
        if config.root_volume is not None and config.root_volume["serial"] == serial:
            raise exception.InvalidVolume(
                reason=f"volume {serial} is the root disk of instance {instance.uuid}, "
                       "which cannot be detached")
        if guest.alive():
            guest_volumes.unplug(guest, serial, CONF.libvirt.device_detach_timeout)
        config.volumes = [kept for kept in config.volumes if kept["serial"] != serial]
        config.save(guest.paths.config)
        LOG.info("Volume %s detached from guest %s", serial, guest.uuid)

    # --- interfaces -----------------------------------------------------------------------

    def attach_interface(self, ctx: Any, instance: Instance, image_meta: ImageMeta,
                         vif: VIF) -> None:
        """A virtio-net on a free PCIe port (novalite.virt.qemu.nics), hot-plugged into a
        running guest on its tap, filtered by the port's security groups first; in its
        configuration either way. Asked again for a NIC the guest has, it does nothing."""
        guest = self._existing(instance)
        config = GuestConfig.load(guest.paths.config)
        if any(nic["port_id"] == vif.id for nic in config.nics):
            return
        nic = {**_nic(vif), "port": guest_volumes.free_port(
            config.pcie_ports, config.volumes + config.nics)}
        if guest.alive():
            self._hot_plug(guest, nic)
        config.nics.append(nic)
        config.save(guest.paths.config)
        LOG.info("Port %s attached to guest %s on %s", vif.id, guest.uuid,
                 guest_volumes.port_id(nic["port"]))

    def _hot_plug(self, guest: Guest, nic: dict[str, Any]) -> None:
        tap = names.port_device(nic["port_id"])
        _plug_tap(self.host, nic)
        try:
            self.security_groups.confirm([nic["port_id"]])
            fd = taps.open_tap(guest.network_namespace, tap)
            try:
                guest_nics.plug(guest, nic, fd)
            finally:
                os.close(fd)  # QEMU has its own copy
        except Exception:
            bridges.unplug(self.host, tap)
            raise

    def detach_interface(self, ctx: Any, instance: Instance, vif: VIF) -> None:
        """Unplugged from a running guest once it released it, its tap then gone; then
        out of the configuration. A NIC the guest does not have is not an error."""
        guest = self._guest(instance.uuid)
        if not os.path.exists(guest.paths.config):
            return
        config = GuestConfig.load(guest.paths.config)
        nic = next((nic for nic in config.nics if nic["port_id"] == vif.id), None)
        if nic is None:
            return
        if guest.alive():
            guest_nics.unplug(guest, nic, CONF.libvirt.device_detach_timeout)
            bridges.unplug(self.host, names.port_device(vif.id))
        config.nics.remove(nic)
        config.save(guest.paths.config)
        LOG.info("Port %s detached from guest %s", vif.id, guest.uuid)

    # --- resize and cold migration -------------------------------------------------------

    def _kept(self, uuid_: str) -> GuestPaths:
        return GuestPaths(self._dir(uuid_) + RESIZE_SUFFIX)

    def migrate_disk_and_power_off(self, ctx: Any, instance: Instance, dest_host: str,
                                   flavor: Flavor, timeout: int = 0,
                                   retry_interval: int = 0) -> str:
        """The guest off, its directory set aside for a revert, its disk served to the
        destination over NBD (the same way to this very host, for a resize here). A
        volume-backed guest has no disk here: the destination is told what its root
        volume boots with instead (the kernel and ramdisk images it names)."""
        guest = self._existing(instance)
        config = GuestConfig.load(guest.paths.config)
        backed = config.root_volume is not None
        if (not backed and flavor.root_gb
                and disk.virtual_size(guest.paths.disk) > flavor.root_gb * disk.GiB):
            raise exception.ResizeError(reason="Unable to resize disk down.")
        self.power_off(instance, timeout, retry_interval)
        with self._lock:
            self._guests.pop(instance.uuid, None)
        kept = self._kept(instance.uuid)
        shutil.rmtree(kept.directory, ignore_errors=True)
        os.rename(guest.paths.directory, kept.directory)
        if backed:
            return json.dumps({"disk": None, "boot": _boot_properties(config)})
        return json.dumps({"disk": nbd.export(kept.disk, kept.nbd_pidfile)})

    def finish_migration(self, ctx: Any, migration: Migration, instance: Instance,
                         disk_info: str, image_meta: ImageMeta | None,
                         resize_instance: bool,
                         block_device_info: list[driver.VolumeDevice] | None = None,
                         power_on: bool = True) -> None:
        """The disk read from the source into a standalone qcow2 here, grown to the new
        flavor's root disk (a volume-backed guest has none: it boots from its root
        volume as the source said), the guest configured with its memory, vCPUs and
        volumes."""
        moved = json.loads(disk_info)
        devices = block_device_info or []
        root = driver.root_volume(devices)
        with self._new_guest(ctx, instance) as guest:
            if root is not None:
                config = self._volume_backed(
                    ctx, instance, ImageMeta(id="", properties=moved["boot"]), root)
            else:
                config = self._pulled(ctx, instance, image_meta, moved["disk"], guest)
            _set_volumes(config, devices)
            self._configure(instance, guest, config)
            if power_on:
                self._launch(guest)

    def _pulled(self, ctx: Any, instance: Instance, image_meta: ImageMeta | None,
                url: str, guest: Guest) -> GuestConfig:
        """The source's disk served at `url` made this guest's, at its flavor's size."""
        nbd.pull(url, guest.paths.disk)
        flavor = instance.flavor
        assert flavor is not None
        if flavor.root_gb * disk.GiB > disk.virtual_size(guest.paths.disk):
            disk.grow(guest.paths.disk, flavor.root_gb * disk.GiB)
        image_id = image_meta.id if image_meta else instance.image_ref or ""
        image, _, kernel, ramdisk = self._boot_files(ctx, image_id, {})
        return self._guest_config(instance, image, kernel, ramdisk, {})

    def confirm_migration(self, ctx: Any, migration: Migration, instance: Instance) -> None:
        kept = self._kept(instance.uuid)
        nbd.stop_export(kept.nbd_pidfile)
        if not os.path.exists(self._guest(instance.uuid).paths.config):  # not resized here
            self._unplug(kept)
        shutil.rmtree(kept.directory, ignore_errors=True)

    def finish_revert_migration(self, ctx: Any, instance: Instance,
                                block_device_info: list[driver.VolumeDevice] | None = None,
                                power_on: bool = True) -> None:
        """The set-aside directory back in place (a resize on this host: instead of the
        new guest's), its volumes as connected here again, started if it ran."""
        kept = self._kept(instance.uuid)
        nbd.stop_export(kept.nbd_pidfile)
        if not os.path.isdir(kept.directory):
            raise exception.InstanceNotFound(instance_id=instance.uuid)
        self.destroy(ctx, instance)
        os.rename(kept.directory, self._dir(instance.uuid))
        guest = self._guest(instance.uuid)
        config = GuestConfig.load(guest.paths.config)
        _set_volumes(config, block_device_info or [])
        config.save(guest.paths.config)
        if power_on:
            self._launch(guest)

    # --- live migration ------------------------------------------------------------------

    def check_can_live_migrate_source(self, ctx: Any, instance: Instance) -> dict[str, Any]:
        """The guest's layout (novalite.virt.qemu.live_migration.Layout): its root
        ports, the port of each volume and NIC that has one, what a volume-backed guest
        boots with."""
        config = GuestConfig.load(self._existing(instance).paths.config)
        boot = _boot_properties(config) if config.root_volume is not None else None
        return migrating.Layout(
            pcie_ports=config.pcie_ports, boot=boot,
            volume_ports={kept["serial"]: kept["port"] for kept in config.volumes},
            nic_ports={nic["mac"]: nic["port"] for nic in config.nics
                       if nic.get("port") is not None}
        ).to_data()

    def pre_live_migration(self, ctx: Any, instance: Instance,
                           block_device_info: list[driver.VolumeDevice] | None = None,
                           migrate_data: dict[str, Any] | None = None) -> dict[str, Any]:
        """A QEMU waiting for the guest, the machine the source's layout describes: an
        image-backed guest on an empty overlay of the same base and size, which it
        serves over NBD for the source to mirror the disk into; each volume (a
        volume-backed guest's root too) opened through its connection to this host, on
        the port the source has it on. A source that did not describe its guest (older
        than RPC 1.25) sends only a guest without volumes."""
        devices = block_device_info or []
        layout = migrating.Layout.from_data(migrate_data or {})
        if layout is None and (devices or instance.is_volume_backed):
            raise exception.MigrationPreCheckError(reason=(
                "the source did not say which PCIe port each of the guest's volumes is "
                "on: its compute service must be upgraded first"))
        root = driver.root_volume(devices)
        with self._new_guest(ctx, instance) as guest:
            if root is not None:
                assert layout is not None
                config = self._volume_backed(
                    ctx, instance, ImageMeta(id="", properties=layout.boot or {}), root,
                    probe=False)
            else:
                config = self._empty_overlay(ctx, instance, guest)
            # an undescribed source's guest has its NICs on the root bus
            described = layout or migrating.Layout(
                pcie_ports=CONF.libvirt.num_pcie_ports, volume_ports={})
            config.pcie_ports = described.pcie_ports
            for nic in config.nics:
                nic["port"] = described.nic_ports.get(nic["mac"])
            _set_volumes(config, devices, described.volume_ports)
            self._configure(instance, guest, config)
            self._plug(guest, bound_here=False)
            return migrating.receive(guest, self.emulator, disk=root is None)

    def _empty_overlay(self, ctx: Any, instance: Instance, guest: Guest) -> GuestConfig:
        """An overlay of the instance's image for a live migration's mirror to fill."""
        flavor = instance.flavor
        assert flavor is not None
        image, base, kernel, ramdisk = self._boot_files(ctx, instance.image_ref or "", {})
        found = disk.info(base)
        self._overlay(base, found["format"], int(found["virtual-size"]), flavor,
                      guest.paths.disk)
        return self._guest_config(instance, image, kernel, ramdisk, {})

    def rollback_live_migration_at_destination(self, ctx: Any, instance: Instance) -> None:
        self.destroy(ctx, instance)

    def live_migration(self, ctx: Any, instance: Instance, dest: str,
                       migrate_data: dict[str, Any]) -> None:
        """QEMU's own: the disk (if the guest has one) mirrored into the destination's
        export, the memory copied while the guest runs (paused under TCG), then the
        switch; the source's QEMU (its volumes' NBD clients with it) and directory go.
        Aborted: the guest runs on here with its volumes, LiveMigrationAborted."""
        guest = self._running(instance)
        control = migrating.Control()
        with self._lock:
            self._live[instance.uuid] = control
        try:
            accel = GuestConfig.load(guest.paths.config).accel
            migrating.send(guest, migrate_data, control, CONF.qemu.live_migration_timeout,
                           migrating.pauses_for_copy(accel))
        finally:
            with self._lock:
                del self._live[instance.uuid]
        self._unwatch(guest.uuid)
        guest.kill()
        self.cleanup(ctx, instance)

    def _live_control(self, instance: Instance) -> migrating.Control:
        with self._lock:
            control = self._live.get(instance.uuid)
        if control is None:
            raise exception.NovaliteException(
                f"No live migration of instance {instance.uuid} is running on {self.host}.")
        return control

    def live_migration_force_complete(self, instance: Instance) -> None:
        self._live_control(instance).force.set()

    def live_migration_abort(self, instance: Instance) -> None:
        self._live_control(instance).abort.set()

    def post_live_migration_at_destination(
            self, ctx: Any, instance: Instance,
            block_device_info: list[driver.VolumeDevice] | None = None) -> None:
        """The guest runs here now; it resumes if it ran before (a forced completion
        paused it) and is watched as this host's."""
        guest = self._existing(instance)
        migrating.landed(guest, resume=instance.power_state == states.RUNNING)
        self._watch(guest.uuid)

    def get_instance_diagnostics(self, instance: Instance) -> Diagnostics:
        return diagnostics.gather(self._running(instance), instance, self.accel)

    def get_console_output(self, ctx: Any, instance: Instance) -> str:
        return self._existing(instance).console_tail(MAX_CONSOLE_BYTES)

    def get_vnc_console(self, ctx: Any, instance: Instance) -> ConsoleEndpoint:
        port = self._console_port(instance, consoles.vnc_port, "vnc")
        return ConsoleEndpoint(host=CONF.vnc.server_proxyclient_address, port=port)

    def get_serial_console(self, ctx: Any, instance: Instance) -> ConsoleEndpoint:
        port = self._console_port(instance, consoles.serial_port, "serial")
        return ConsoleEndpoint(host=CONF.serial_console.proxyclient_address, port=port)

    def _console_port(self, instance: Instance, query: Callable[[Guest], int | None],
                      console_type: str) -> int:
        """Asked of the guest's QEMU (novalite.virt.qemu.consoles). A guest launched
        without that console, or whose QEMU does not run (off, suspended, gone
        meanwhile), listens nowhere: ConsoleTypeUnavailable, as Nova's libvirt driver
        says of a domain with no such listener."""
        guest = self._guest(instance.uuid)
        port = None
        if guest.alive():
            try:
                port = query(guest)
            except QMPError:
                if guest.alive():
                    raise
        if port is None:
            raise exception.ConsoleTypeUnavailable(console_type=console_type)
        return port

    # --- watching -----------------------------------------------------------------------

    def _watch(self, uuid_: str) -> None:
        with self._lock:
            self._watched.add(uuid_)

    def _unwatch(self, uuid_: str) -> None:
        """Before an exit this driver causes, which is no event."""
        with self._lock:
            self._watched.discard(uuid_)

    def _watch_loop(self) -> None:
        while not self._stop.wait(WATCH_INTERVAL):
            with self._lock:
                watched = [self._guests[u] for u in self._watched if u in self._guests]
            for guest in watched:
                if guest.alive():
                    continue
                with self._lock:
                    if guest.uuid not in self._watched:
                        continue  # stopped on purpose meanwhile
                    self._watched.discard(guest.uuid)
                code = guest.process.returncode if guest.process is not None else None
                LOG.warning("QEMU of guest %s exited without being asked (exit code %s); "
                            "its qemu.log ends: %s; its console ends: %s", guest.uuid, code,
                            guest.log_tail(300), guest.console_tail(300).strip())
                try:
                    self.emit_event(driver.LifecycleEvent(guest.uuid,
                                                          driver.EVENT_LIFECYCLE_STOPPED))
                except Exception:
                    LOG.exception("Lifecycle event of guest %s failed", guest.uuid)


def _abort(instance: Instance, reason: str) -> exception.BuildAbortException:
    return exception.BuildAbortException(instance_uuid=instance.uuid, reason=reason)


def _check_virtio_disk(disk_bus: str | None, device_type: str | None) -> None:
    if disk_bus not in (None, "virtio") or device_type not in (None, "disk"):
        raise exception.NovaliteException(
            f"The qemu driver attaches volumes as virtio disks, not as "
            f"{device_type or 'disk'} on {disk_bus or 'virtio'}.")


def _volume(device: driver.VolumeDevice, port: int | None) -> guest_volumes.Volume:
    _check_virtio_disk(device.disk_bus, device.device_type)
    return guest_volumes.Volume.of(device.connection_info, port)


def _set_volumes(config: GuestConfig, devices: list[driver.VolumeDevice],
                 ports: dict[str, int] | None = None) -> None:
    """The guest's volumes are `devices`, as they are connected to this host now: the
    root volume (boot index 0) where a disk file would be, a volume the guest had on
    the port it had (`ports` by volume id, else as `config` has them: the guest finds
    its disks where they were), a new one on a free port as attach_volume puts it.
    Raises for a volume the guest cannot take."""
    root = driver.root_volume(devices)
    had = ports if ports is not None else {kept["serial"]: kept["port"]
                                           for kept in config.volumes}
    others = sorted((device for device in devices if device is not root),
                    key=lambda device: device.serial not in had)
    if root is not None:
        config.root_volume = dataclasses.asdict(_volume(root, None))
    config.volumes = []
    for device in others:
        port = had.get(device.serial)
        if port is None:
            port = guest_volumes.free_port(config.pcie_ports, config.volumes + config.nics)
        config.volumes.append(dataclasses.asdict(_volume(device, port)))


def _bootable(volume: guest_volumes.Volume) -> bool:
    """Whether a BIOS boots the volume (read through its export, before the guest)."""
    try:
        return disk.is_bootable(volume.probe_filename(), "raw")
    except disk.DiskError as exc:
        raise exception.NovaliteException(
            f"Volume {volume.serial} could not be read from its export: {exc}") from exc


def _boot_properties(config: GuestConfig) -> dict[str, str]:
    """What a volume-backed guest boots with, as the image properties that named it
    (the base cache keeps each kernel and ramdisk under its image's id)."""
    found = {"kernel_id": config.kernel, "ramdisk_id": config.ramdisk}
    properties = {key: images.image_id(path) for key, path in found.items() if path}
    if config.kernel_args:
        properties["os_command_line"] = config.kernel_args
    return properties


def _serials(config: GuestConfig) -> set[str]:
    """The volumes a guest has, its root volume with them."""
    root = [config.root_volume["serial"]] if config.root_volume is not None else []
    return {kept["serial"] for kept in config.volumes} | set(root)


def _root_serial(guest: Guest) -> str | None:
    """The id of the volume a volume-backed guest boots from; None when it has a disk."""
    root = GuestConfig.load(guest.paths.config).root_volume
    return str(root["serial"]) if root is not None else None


def _nic(vif: VIF) -> dict[str, Any]:
    net = vif.network
    return {"port_id": vif.id, "mac": vif.address, "network_id": net.id,
            "network_type": net.network_type or "vxlan", "segmentation_id": net.segmentation_id,
            "physical_network": net.physical_network, "mtu": net.mtu}


def _plug_tap(host: str, nic: dict[str, Any]) -> None:
    bridges.plug_tap(host, _segment(nic), nic["port_id"],
                     mac="fe" + nic["mac"][2:])  # not the guest's own, as libvirt


def _segment(nic: dict[str, Any]) -> bridges.Segment:
    return bridges.Segment(nic["network_id"], nic["network_type"], nic["segmentation_id"],
                           nic["physical_network"], nic["mtu"])


def _runs_guest_agent(properties: dict[str, Any]) -> bool:
    return strutils.parse_bool(properties.get("hw_qemu_guest_agent")) is True


def _quote(path: str) -> str:
    return "'" + path.replace("'", "'\\''") + "'"


def _host_memory_mb() -> int:
    """From /proc/meminfo: NUMA-node figures (what libvirt reports) can be a fraction."""
    with open("/proc/meminfo") as meminfo:
        for line in meminfo:
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) // 1024
    return 0


_version_cache: dict[str, int] = {}


def _qemu_version(emulator: str) -> int:
    """Nova's integer form: 7.2.22 is 7002022."""
    if emulator not in _version_cache:
        try:
            with affinity.unpinned():
                text = subprocess.run([emulator, "--version"], capture_output=True,
                                      text=True, timeout=10, check=False).stdout
        except OSError:
            text = ""
        found = re.search(r"version (\d+)\.(\d+)\.(\d+)", text)
        major, minor, micro = (int(n) for n in found.groups()) if found else (0, 0, 0)
        _version_cache[emulator] = major * 1_000_000 + minor * 1000 + micro
    return _version_cache[emulator]
