"""A simulated hypervisor: instances are records in memory, spawns take configurable time.

It runs the embedded default, the tests and scale runs, many hosts per process. Each guest
has a console log of what happened to it, and `crash` simulates a guest dying on its own
(as a QEMU process that exits would), with the lifecycle event a real driver emits. Each
guest records the volumes attached to it (their connection info, by volume id) and the
PCIe root port each sits on, so that it reports its devices where a qemu guest would
have them (novalite.virt.pci_layout), its NICs after them in its ports' order; a NIC
attached to it later sits on a root port of its own from the same pool. With
[fake_driver] persist_guests the guests of a host are kept in files (one each) under the
state directory, so that, as real guests, they outlive a restart of their compute service.
Its guests' VNC and serial consoles are real TCP endpoints a console proxy can reach
(novalite.virt.fake_consoles), served while the guest runs.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

import orjson

from novalite import exception
from novalite.clients import glance
from novalite.conf import CONF
from novalite.hardware import numa
from novalite.objects import states
from novalite.objects.console import ConsoleEndpoint
from novalite.objects.device_metadata import DeviceMetadata
from novalite.objects.diagnostics import (
    CpuDiagnostics,
    Diagnostics,
    DiskDiagnostics,
    NicDiagnostics,
)
from novalite.objects.flavor import Flavor
from novalite.objects.image import ImageMeta
from novalite.objects.instance import Instance
from novalite.objects.migration import Migration
from novalite.objects.network_info import VIF
from novalite.timeutils import utcnow
from novalite.virt import fake_consoles, pci_layout
from novalite.virt.driver import (
    EVENT_LIFECYCLE_STOPPED,
    ComputeDriver,
    InstanceInfo,
    LifecycleEvent,
    VolumeDevice,
    network_connector,
    root_volume,
)

_NODE_NAMESPACE = uuid.UUID("7b6a2f4e-3c4d-4f5e-8a9b-0c1d2e3f4a5b")
# Power states whose QEMU process lives, and with it the guest's console listeners.
_CONSOLE_UP = (states.RUNNING, states.POWER_PAUSED)


@dataclasses.dataclass
class _LiveCopy:
    """A simulated live migration's copy under way: `ended` when it has run its time,
    or sooner by an abort or a force-complete."""

    ended: threading.Event = dataclasses.field(default_factory=threading.Event)
    aborted: bool = False


class FakeDriver(ComputeDriver):
    capabilities = {"supports_image_type_qcow2": True, "supports_image_type_raw": True,
                    "supports_multiattach": True, "supports_attach_interface": True}

    def __init__(self, numa_topology: dict | None = None, pci_stats: list | None = None,
                 metrics: dict[str, float] | None = None) -> None:
        """The NUMA topology (novalite.hardware.numa's JSON), PCI device pools and metrics to
        report; by default those [fake_driver] describes (none, unless set)."""
        self.host = ""
        self.instances: dict[str, int] = {}
        self.consoles: dict[str, list[str]] = {}
        # instance uuid -> volume id -> the connection info it was attached with
        self.volumes: dict[str, dict[str, dict[str, Any]]] = {}
        # instance uuid -> volume id -> its chain of files (assisted snapshots), the
        # active one last; a volume no snapshot was taken of has none
        self.volume_chains: dict[str, dict[str, list[str]]] = {}
        # instance uuid -> volume id -> its root port; the root volume is on none
        self.ports: dict[str, dict[str, int | None]] = {}
        # instance uuid -> port id -> the root port of a NIC attached after it was made
        self.nics: dict[str, dict[str, int]] = {}
        # guests a resize or migration took from here: (power state, console) kept for a
        # revert until the move is confirmed (a real driver's "_resize" copy of the disks)
        self.resized: dict[str, tuple[int, list[str]]] = {}
        self._started = time.monotonic()
        self._live_copies: dict[str, _LiveCopy] = {}
        self._lock = threading.Lock()
        self._numa_topology, self._pci_stats, self._metrics = numa_topology, pci_stats, metrics
        self.cached_images: set[str] = set()
        self._console_server: fake_consoles.ConsoleServer | None = None  # from the first ask

    def cache_image(self, ctx: Any, image_id: str) -> bool:
        with self._lock:
            new = image_id not in self.cached_images
            self.cached_images.add(image_id)
        return new

    def init_host(self, host: str) -> None:
        self.host = host
        self._load()

    def cleanup_host(self, host: str) -> None:
        """The consoles' listener and connections close with the service (the guests
        keep running): a stopped cloud leaves no socket open and no thread behind."""
        with self._lock:
            server, self._console_server = self._console_server, None
        if server is not None:
            server.stop()  # not under the lock: a connection's thread may be waiting for it

    def _store(self) -> str | None:
        """The host's directory of guests, a file each."""
        if not CONF.fake_driver.persist_guests or not self.host:
            return None
        return os.path.join(CONF.state_path, "fake-guests", self.host)

    def _load(self) -> None:
        """The guests this host had when its compute service last stopped (a store of
        one file for all of them, as novalite kept it before, is split into files)."""
        store = self._store()
        if store is None:
            return
        if os.path.exists(f"{store}.json"):
            self._load_whole_host(f"{store}.json")
        for name in os.listdir(store) if os.path.isdir(store) else []:
            if name.endswith(".json"):  # not an unfinished .tmp
                with open(os.path.join(store, name), "rb") as f:
                    guest = orjson.loads(f.read())
                with self._lock:
                    self._take(name.removesuffix(".json"), guest)

    def _load_whole_host(self, path: str) -> None:
        with open(path, "rb") as f:
            guests = orjson.loads(f.read())
        with self._lock:
            for uuid_, guest in guests.items():
                self._take(uuid_, guest)
                self._save(uuid_)
        os.remove(path)

    def _take(self, uuid_: str, guest: dict[str, Any]) -> None:
        self.instances[uuid_] = guest["power_state"]
        self.consoles[uuid_] = guest["console"]
        if guest.get("volumes"):
            self.volumes[uuid_] = guest["volumes"]
            self.ports[uuid_] = guest.get("ports", {})
        if guest.get("nics"):
            self.nics[uuid_] = guest["nics"]
        if guest.get("volume_chains"):
            self.volume_chains[uuid_] = guest["volume_chains"]

    def _save(self, uuid_: str) -> None:
        """Write one guest as it is now, or remove it once gone (caller holds the lock):
        to a new file renamed over the old, so a kill at any line leaves it whole. A file
        per guest: with one for the whole host, every spawn and destroy wrote all of its
        guests, 7 % of a boot storm's CPU at 60 guests a host."""
        store = self._store()
        if store is None:
            return
        path = os.path.join(store, f"{uuid_}.json")
        state = self.instances.get(uuid_)
        if state is None:
            with contextlib.suppress(FileNotFoundError):
                os.remove(path)
            return
        guest = {"power_state": state, "console": self.consoles.get(uuid_, []),
                 "volumes": self.volumes.get(uuid_, {}), "ports": self.ports.get(uuid_, {}),
                 "nics": self.nics.get(uuid_, {}),
                 "volume_chains": self.volume_chains.get(uuid_, {})}
        os.makedirs(store, exist_ok=True)
        with open(f"{path}.tmp", "wb") as f:
            f.write(orjson.dumps(guest, option=orjson.OPT_NON_STR_KEYS))
        os.replace(f"{path}.tmp", path)

    def get_available_nodes(self, refresh: bool = False) -> list[str]:
        return [self.host]

    def node_uuid(self, nodename: str) -> str:
        return str(uuid.uuid5(_NODE_NAMESPACE, f"{self.host}/{nodename}"))

    def get_available_resource(self, nodename: str) -> dict[str, Any]:
        return {
            "vcpus": CONF.fake_driver.vcpus,
            "memory_mb": CONF.fake_driver.memory_mb,
            "local_gb": CONF.fake_driver.local_gb,
            "hypervisor_type": "fake",
            "hypervisor_version": 1000,
            "hypervisor_hostname": nodename,
            "cpu_info": json.dumps({"arch": "x86_64", "model": "fake", "vendor": "novalite",
                                    "topology": {"sockets": 1, "cores":
                                                 CONF.fake_driver.vcpus, "threads": 1}}),
            "supported_instances": [["x86_64", "fake", "hvm"]],
            "disk_available_least": CONF.fake_driver.local_gb,
            "numa_topology": self._host_numa_topology(),
            "pci_stats": self._pci_pools(),
            "metrics": [{"name": name, "value": float(value), "source": "fake"}
                        for name, value in self._reported_metrics().items()],
        }

    def _host_numa_topology(self) -> dict | None:
        if self._numa_topology is not None:
            return self._numa_topology
        opts = CONF.fake_driver
        if not opts.numa_nodes:
            return None
        return numa.evenly_split(opts.vcpus, opts.memory_mb, opts.numa_nodes,
                                 opts.threads_per_core).to_dict()

    def _pci_pools(self) -> list[dict]:
        if self._pci_stats is not None:
            return self._pci_stats
        return [json.loads(pool) for pool in CONF.fake_driver.pci_devices]

    def _reported_metrics(self) -> dict[str, float]:
        return self._metrics if self._metrics is not None else dict(CONF.fake_driver.metrics)

    def list_instances(self) -> list[str]:
        with self._lock:
            return list(self.instances)

    def get_info(self, instance: Instance) -> InstanceInfo:
        with self._lock:
            if instance.uuid not in self.instances:
                raise exception.InstanceNotFound(instance_id=instance.uuid)
            return InstanceInfo(state=self.instances[instance.uuid])

    def spawn(self, ctx: Any, instance: Instance, image_meta: ImageMeta | None,
              power_on: bool = True,
              block_device_info: list[VolumeDevice] | None = None) -> None:
        if CONF.fake_driver.spawn_seconds:
            time.sleep(CONF.fake_driver.spawn_seconds)
        with self._lock:
            if instance.uuid in self.instances:
                raise exception.InstanceExists(name=instance.uuid)
            self.instances[instance.uuid] = states.RUNNING if power_on else states.SHUTDOWN
            self._connected(instance, block_device_info)
            self.consoles[instance.uuid] = []
            self._log(instance.uuid, f"novalite fake guest {instance.uuid} created on "
                                     f"{self.host}")
            if power_on:
                self._boot_log(instance.uuid)
            self._save(instance.uuid)

    def power_off(self, instance: Instance, timeout: int = 0, retry_interval: int = 0) -> None:
        self._transition(instance, states.SHUTDOWN, "reboot: Power down")

    def power_on(self, ctx: Any, instance: Instance) -> None:
        self._transition(instance, states.RUNNING)

    def get_instance_diagnostics(self, instance: Instance) -> Diagnostics:
        """A simulated guest's: its flavor's CPUs and memory, one disk and one NIC per
        port, with counters that are zero (nothing runs in it)."""
        with self._lock:
            state = self.instances.get(instance.uuid)
        if state is None:
            raise exception.InstanceNotFound(instance_id=instance.uuid)
        flavor = instance.flavor
        vcpus, memory_mb = (flavor.vcpus, flavor.memory_mb) if flavor else (1, None)
        launched = instance.launched_at
        uptime = (int((utcnow() - launched).total_seconds()) if launched else None)
        return Diagnostics(
            state=states.POWER_STATE_NAMES.get(state, "pending"), hypervisor="fake",
            hypervisor_os="novalite", uptime=uptime, memory_maximum_mb=memory_mb,
            memory_used_mb=memory_mb,
            cpu_details=[CpuDiagnostics(id=i, time=0, utilisation=0) for i in range(vcpus)],
            disk_details=[DiskDiagnostics(read_bytes=0, read_requests=0, write_bytes=0,
                                          write_requests=0, errors_count=0)],
            nic_details=[NicDiagnostics(mac_address=vif.address, rx_octets=0,
                                        rx_errors=0, rx_drop=0, rx_packets=0, rx_rate=None,
                                        tx_octets=0, tx_errors=0, tx_drop=0, tx_packets=0,
                                        tx_rate=None)
                         for vif in instance.network_info or []])

    def snapshot(self, ctx: Any, instance: Instance, image_id: str,
                 update_task_state: Callable[[str, str], None]) -> None:
        """A simulated guest's disk is a line naming it: that is what the image holds."""
        with self._lock:
            if instance.uuid not in self.instances:
                raise exception.InstanceNotFound(instance_id=instance.uuid)
        update_task_state(states.IMAGE_PENDING_UPLOAD, states.IMAGE_SNAPSHOT)
        update_task_state(states.IMAGE_UPLOADING, states.IMAGE_PENDING_UPLOAD)
        glance.upload(ctx, image_id, [f"novalite fake disk of {instance.uuid}\n".encode()],
                      disk_format="raw")

    def pre_live_migration(self, ctx: Any, instance: Instance,
                           block_device_info: list[VolumeDevice] | None = None,
                           migrate_data: dict[str, Any] | None = None) -> dict[str, Any]:
        return {}  # a simulated guest needs nothing to land

    def rollback_live_migration_at_destination(self, ctx: Any, instance: Instance) -> None:
        """Nothing was prepared."""

    def live_migration(self, ctx: Any, instance: Instance, dest: str,
                       migrate_data: dict[str, Any]) -> None:
        """A simulated guest is copied for [fake_driver] live_migration_seconds (unless
        aborted or forced to complete sooner), then leaves in one step; the
        destination's driver takes it up."""
        copy = _LiveCopy()
        with self._lock:
            if instance.uuid not in self.instances:
                raise exception.InstanceNotFound(instance_id=instance.uuid)
            self._live_copies[instance.uuid] = copy
        try:
            copy.ended.wait(CONF.fake_driver.live_migration_seconds)
        finally:
            with self._lock:
                del self._live_copies[instance.uuid]
        if copy.aborted:
            raise exception.LiveMigrationAborted(instance_uuid=instance.uuid)
        with self._lock:
            if self.instances.pop(instance.uuid, None) is None:
                raise exception.InstanceNotFound(instance_id=instance.uuid)
            self.consoles.pop(instance.uuid, None)
            self.volumes.pop(instance.uuid, None)
            self._hang_up_consoles(instance.uuid)
            self._save(instance.uuid)

    def _live_copy(self, instance: Instance, abort: bool) -> None:
        with self._lock:
            copy = self._live_copies.get(instance.uuid)
            if copy is None:
                raise exception.NovaliteException(
                    f"No live migration of instance {instance.uuid} is running on "
                    f"{self.host}.")
            copy.aborted = abort
            copy.ended.set()
            self._log(instance.uuid, "live migration aborted" if abort
                      else "paused to complete the live migration")

    def live_migration_force_complete(self, instance: Instance) -> None:
        self._live_copy(instance, abort=False)

    def live_migration_abort(self, instance: Instance) -> None:
        self._live_copy(instance, abort=True)

    def post_live_migration_at_destination(
            self, ctx: Any, instance: Instance,
            block_device_info: list[VolumeDevice] | None = None) -> None:
        with self._lock:
            self.instances[instance.uuid] = instance.power_state or states.RUNNING
            self._connected(instance, block_device_info)
            self.consoles.setdefault(instance.uuid, [])
            self._log(instance.uuid, f"novalite fake guest {instance.uuid} arrived on "
                                     f"{self.host}")
            self._save(instance.uuid)

    def rescue(self, ctx: Any, instance: Instance, image_meta: ImageMeta,
               rescue_password: str | None) -> None:
        """A simulated rescue boot: powered off, then running from the rescue image."""
        self._transition(instance, states.SHUTDOWN, "reboot: Power down")
        self._transition(instance, states.RUNNING,
                         f"novalite fake guest booted from rescue image {image_meta.id}")

    def unrescue(self, ctx: Any, instance: Instance) -> None:
        self._transition(instance, states.RUNNING, "novalite fake guest booted from its disk")

    def power_update_event(self, instance: Instance, target_power_state: str) -> None:
        """A simulated host is powered from outside as an Ironic node is: the event says
        what its power is now."""
        self._transition(instance, states.RUNNING if target_power_state == states.POWER_ON_TAG
                         else states.SHUTDOWN)

    def reboot(self, ctx: Any, instance: Instance, reboot_type: str) -> None:
        if reboot_type == "HARD":
            with self._lock:  # a hard reboot recreates a guest the hypervisor lost
                self.instances[instance.uuid] = states.RUNNING
                self.consoles.setdefault(instance.uuid, [])
                self._boot_log(instance.uuid)
                self._save(instance.uuid)
            return
        self._transition(instance, states.RUNNING, "reboot: Restarting system")

    def pause(self, instance: Instance) -> None:
        self._transition(instance, states.POWER_PAUSED, allowed=(states.RUNNING,),
                         action="pause")

    def unpause(self, instance: Instance) -> None:
        self._transition(instance, states.RUNNING, allowed=(states.POWER_PAUSED,),
                         action="unpause")

    def suspend(self, ctx: Any, instance: Instance) -> None:
        self._transition(instance, states.POWER_SUSPENDED, "PM: suspend entry (deep)",
                         allowed=(states.RUNNING, states.POWER_PAUSED), action="suspend")

    def resume(self, ctx: Any, instance: Instance) -> None:
        self._transition(instance, states.RUNNING, "PM: suspend exit",
                         allowed=(states.POWER_SUSPENDED,), action="resume")

    def resume_state_on_host_boot(self, ctx: Any, instance: Instance) -> None:
        with self._lock:
            self.instances[instance.uuid] = states.RUNNING
            self.consoles.setdefault(instance.uuid, [])
            self._boot_log(instance.uuid)
            self._save(instance.uuid)

    def get_volume_connector(self, instance: Instance) -> dict[str, Any]:
        return network_connector(self.host)

    def attach_volume(self, ctx: Any, connection_info: dict[str, Any], instance: Instance,
                      mountpoint: str | None, disk_bus: str | None = None,
                      device_type: str | None = None) -> None:
        """Recorded on the guest (a running one logs the new disk as a kernel would)."""
        serial = connection_info["serial"]
        with self._lock:
            state = self.instances.get(instance.uuid)
            if state is None:
                raise exception.InstanceNotFound(instance_id=instance.uuid)
            self.volumes.setdefault(instance.uuid, {})[serial] = connection_info
            self.volume_chains.get(instance.uuid, {}).pop(serial, None)
            ports = self.ports.setdefault(instance.uuid, {})
            if serial not in ports:
                ports[serial] = _free_port(ports, self.nics.get(instance.uuid, {}))
            if state == states.RUNNING:
                self._log(instance.uuid, f"virtio_blk: [{mountpoint}] disk {serial} attached")
            self._save(instance.uuid)

    def extend_volume(self, ctx: Any, connection_info: dict[str, Any], instance: Instance,
                      requested_size: int) -> None:
        """Logged on the console as a guest's kernel does (the size in 512-byte sectors)."""
        serial = connection_info["serial"]
        with self._lock:
            if serial not in self.volumes.get(instance.uuid, {}):
                raise exception.VolumeNotFound(volume_id=serial)
            if self.instances.get(instance.uuid) == states.RUNNING:
                self._log(instance.uuid, f"virtio_blk: disk {serial}: new size "
                                         f"{requested_size // 512} 512-byte logical blocks")
            self._save(instance.uuid)

    def detach_volume(self, ctx: Any, connection_info: dict[str, Any], instance: Instance,
                      mountpoint: str | None) -> None:
        serial = connection_info["serial"]
        with self._lock:
            attached = self.volumes.get(instance.uuid, {})
            if attached.pop(serial, None) is not None and \
                    self.instances.get(instance.uuid) == states.RUNNING:
                self._log(instance.uuid, f"virtio_blk: [{mountpoint}] disk {serial} removed")
            self.ports.get(instance.uuid, {}).pop(serial, None)
            self.volume_chains.get(instance.uuid, {}).pop(serial, None)
            if not attached:
                self.volumes.pop(instance.uuid, None)
                self.ports.pop(instance.uuid, None)
            self._save(instance.uuid)

    def volume_snapshot_create(self, ctx: Any, instance: Instance, volume_id: str,
                               create_info: dict[str, Any]) -> None:
        """The new file goes on top of the volume's chain, as a guest's disk moves onto
        the overlay the volume service made."""
        with self._lock:
            chain = self._chain(instance, volume_id)
            chain.append(create_info["new_file"])
            self._save(instance.uuid)

    def volume_snapshot_delete(self, ctx: Any, instance: Instance, volume_id: str,
                               snapshot_id: str, delete_info: dict[str, Any]) -> None:
        """The chain merged as the driver interface says; a file the chain does not
        have where delete_info puts it is refused, as libvirt refuses a block job on
        it. Without file_to_merge (Tempest names none) everything is pulled into the
        active file."""
        with self._lock:
            chain = self._chain(instance, volume_id)
            merged = _merged(chain, delete_info.get("file_to_merge"),
                             delete_info.get("merge_target_file"))
            if merged is None:
                raise exception.NovaliteException(
                    f"Cannot merge {delete_info.get('file_to_merge')} into "
                    f"{delete_info.get('merge_target_file') or 'the active file'}: volume "
                    f"{volume_id}'s chain is {' <- '.join(chain)}")
            chain[:] = merged
            self._save(instance.uuid)

    def _chain(self, instance: Instance, volume_id: str) -> list[str]:
        """The guest's chain of the volume, its base file as Cinder's remotefs names it
        until a snapshot is taken (caller holds the lock)."""
        if instance.uuid not in self.instances:
            raise exception.InstanceNotFound(instance_id=instance.uuid)
        if volume_id not in self.volumes.get(instance.uuid, {}):
            raise exception.NovaliteException("Found no disk to snapshot.")
        return self.volume_chains.setdefault(instance.uuid, {}).setdefault(
            volume_id, [f"volume-{volume_id}"])

    def attach_interface(self, ctx: Any, instance: Instance, image_meta: ImageMeta,
                         vif: VIF) -> None:
        """Recorded on a free root port of the guest (a running one logs the new NIC as
        a kernel would); asked again for a NIC it has, it does nothing."""
        with self._lock:
            state = self.instances.get(instance.uuid)
            if state is None:
                raise exception.InstanceNotFound(instance_id=instance.uuid)
            nics = self.nics.setdefault(instance.uuid, {})
            if vif.id in nics:
                return
            nics[vif.id] = _free_port(self.ports.get(instance.uuid, {}), nics)
            if state == states.RUNNING:
                self._log(instance.uuid, f"virtio_net: NIC {vif.address} attached")
            self._save(instance.uuid)

    def detach_interface(self, ctx: Any, instance: Instance, vif: VIF) -> None:
        with self._lock:
            if instance.uuid not in self.instances:
                raise exception.InstanceNotFound(instance_id=instance.uuid)
            self.nics.get(instance.uuid, {}).pop(vif.id, None)
            if self.instances[instance.uuid] == states.RUNNING:
                self._log(instance.uuid, f"virtio_net: NIC {vif.address} removed")
            self._save(instance.uuid)

    def guest_devices(self, instance: Instance) -> list[DeviceMetadata]:
        """Where a qemu guest would have them: the NICs it was made with are its ports,
        in their order, on the root bus; those attached later are on their root ports."""
        with self._lock:
            if instance.uuid not in self.instances:
                raise exception.InstanceNotFound(instance_id=instance.uuid)
            ports = dict(self.ports.get(instance.uuid, {}))
            nics = dict(self.nics.get(instance.uuid, {}))
        root = next((serial for serial, port in ports.items() if port is None), None)
        return pci_layout.devices(
            [vif.address for vif in instance.network_info if vif.id not in nics], root,
            {serial: port for serial, port in ports.items() if port is not None},
            {vif.address: nics[vif.id] for vif in instance.network_info if vif.id in nics})

    def get_console_output(self, ctx: Any, instance: Instance) -> str:
        with self._lock:
            if instance.uuid not in self.consoles:
                raise exception.InstanceNotFound(instance_id=instance.uuid)
            return "".join(f"{line}\n" for line in self.consoles[instance.uuid])

    def get_vnc_console(self, ctx: Any, instance: Instance) -> ConsoleEndpoint:
        return self._console("vnc", instance)

    def get_serial_console(self, ctx: Any, instance: Instance) -> ConsoleEndpoint:
        return self._console("serial", instance)

    def _console(self, kind: str, instance: Instance) -> ConsoleEndpoint:
        """The host's console listener, started by the first console asked for, so a
        cloud that never asks has none."""
        with self._lock:
            if instance.uuid not in self.instances:
                raise exception.InstanceNotFound(instance_id=instance.uuid)
            if self.instances[instance.uuid] not in _CONSOLE_UP:
                # no QEMU process, nothing listening: as Nova's libvirt driver says
                raise exception.ConsoleTypeUnavailable(console_type=kind)
            if self._console_server is None:
                self._console_server = fake_consoles.ConsoleServer(self, self.host)
            return self._console_server.endpoint(kind, instance.uuid,
                                                  instance.display_name or instance.uuid)

    # what the console server (fake_consoles.Guests) asks of the guests

    def console_running(self, instance_uuid: str) -> bool:
        with self._lock:
            return self.instances.get(instance_uuid) in _CONSOLE_UP

    def console_log(self, instance_uuid: str) -> list[str]:
        with self._lock:
            return list(self.consoles.get(instance_uuid, []))

    def console_typed(self, instance_uuid: str, line: str) -> None:
        """A line typed on the serial console is in its log as the tty echoed it."""
        with self._lock:
            if instance_uuid in self.consoles:
                self.consoles[instance_uuid].append(line)
                self._save(instance_uuid)

    def _hang_up_consoles(self, instance_uuid: str) -> None:
        """A guest that stops (not a paused one, whose QEMU process lives on) or leaves
        the host takes its console connections with it, as a QEMU process that exits
        does (caller holds the lock)."""
        if self._console_server is not None:
            self._console_server.close_guest(instance_uuid)

    def get_host_uptime(self) -> str:
        """Simulated: up since the driver started, with no users and no load."""
        minutes = int(time.monotonic() - self._started) // 60
        clock = time.strftime("%H:%M:%S", time.gmtime())
        return (f" {clock} up {minutes // 60}:{minutes % 60:02d},  0 users,  "
                "load average: 0.00, 0.00, 0.00")

    def migrate_disk_and_power_off(self, ctx: Any, instance: Instance, dest_host: str,
                                   flavor: Flavor, timeout: int = 0,
                                   retry_interval: int = 0) -> str:
        """Simulated: refuse a disk that would shrink (as Nova's libvirt driver does),
        otherwise power the guest down and keep it aside for a revert."""
        old = instance.flavor
        if old is not None and (flavor.root_gb < old.root_gb
                                or flavor.ephemeral_gb < old.ephemeral_gb):
            raise exception.ResizeError(reason="Unable to resize disk down.")
        if CONF.fake_driver.migration_seconds:
            time.sleep(CONF.fake_driver.migration_seconds)
        with self._lock:
            if instance.uuid not in self.instances:
                raise exception.InstanceNotFound(instance_id=instance.uuid)
            self._log(instance.uuid, "reboot: Power down")
            self.resized[instance.uuid] = (self.instances.pop(instance.uuid),
                                           self.consoles.pop(instance.uuid))
            self.volumes.pop(instance.uuid, None)  # disconnected: the manager hands them over
            self._hang_up_consoles(instance.uuid)
            self._save(instance.uuid)
        return json.dumps({"source": self.host, "root_gb": flavor.root_gb})

    def finish_migration(self, ctx: Any, migration: Migration, instance: Instance,
                         disk_info: str, image_meta: ImageMeta | None,
                         resize_instance: bool,
                         block_device_info: list[VolumeDevice] | None = None,
                         power_on: bool = True) -> None:
        with self._lock:
            kept = self.resized.get(instance.uuid)
            self.consoles[instance.uuid] = list(kept[1]) if kept else []
            self.instances[instance.uuid] = states.RUNNING if power_on else states.SHUTDOWN
            self._connected(instance, block_device_info)
            flavor = instance.flavor
            self._log(instance.uuid, f"novalite fake guest {instance.uuid} migrated to "
                                     f"{self.host} with flavor "
                                     f"{flavor.name if flavor else '?'}")
            if power_on:
                self._boot_log(instance.uuid)
            self._save(instance.uuid)

    def confirm_migration(self, ctx: Any, migration: Migration, instance: Instance) -> None:
        with self._lock:
            self.resized.pop(instance.uuid, None)

    def finish_revert_migration(self, ctx: Any, instance: Instance,
                                block_device_info: list[VolumeDevice] | None = None,
                                power_on: bool = True) -> None:
        with self._lock:
            kept = self.resized.pop(instance.uuid, None)
            if kept is None and instance.uuid not in self.instances:
                raise exception.InstanceNotFound(instance_id=instance.uuid)
            if kept is not None:
                self.consoles[instance.uuid] = kept[1]
            self.instances[instance.uuid] = states.RUNNING if power_on else states.SHUTDOWN
            self._connected(instance, block_device_info)
            self._log(instance.uuid, "novalite fake guest reverted to its original flavor")
            if power_on:
                self._boot_log(instance.uuid)
            self._save(instance.uuid)

    def crash(self, instance_uuid: str) -> None:
        """Simulate the guest dying by itself: it is SHUTDOWN and the driver's listener
        hears EVENT_LIFECYCLE_STOPPED, as from a QEMU process that exited."""
        with self._lock:
            if instance_uuid not in self.instances:
                raise exception.InstanceNotFound(instance_id=instance_uuid)
            self.instances[instance_uuid] = states.SHUTDOWN
            self._log(instance_uuid, "Kernel panic - not syncing: simulated crash")
            self._hang_up_consoles(instance_uuid)
            self._save(instance_uuid)
        self.emit_event(LifecycleEvent(instance_uuid, EVENT_LIFECYCLE_STOPPED))

    def trigger_crash_dump(self, instance: Instance) -> None:
        """A simulated guest prints what a Linux kernel does on an NMI it does not expect
        (and carries on, as one not set to panic on it does)."""
        with self._lock:
            current = self.instances.get(instance.uuid)
            if current is None:
                raise exception.InstanceNotFound(instance_id=instance.uuid)
            if current not in (states.RUNNING, states.POWER_PAUSED):
                raise exception.InstanceNotRunning(instance_id=instance.uuid)
            self._log(instance.uuid, "Uhhuh. NMI received for unknown reason 00 on CPU 0.")

    def set_admin_password(self, instance: Instance, image_meta: ImageMeta, new_pass: str
                           ) -> None:
        """As Nova's fake driver, a running simulated guest takes any password; its
        console shows what passwd prints, never the password."""
        with self._lock:
            current = self.instances.get(instance.uuid)
            if current is None:
                raise exception.InstanceNotFound(instance_id=instance.uuid)
            if current != states.RUNNING:
                raise exception.InstanceNotRunning(instance_id=instance.uuid)
            user = image_meta.properties.get("os_admin_user") or "root"
            self._log(instance.uuid, f"passwd: password for {user} changed by root")

    def _transition(self, instance: Instance, state: int, message: str | None = None,
                    allowed: tuple[int, ...] | None = None, action: str | None = None) -> None:
        """Move a known guest to `state`, from one of the `allowed` states if given (a
        hypervisor refuses to pause a guest that is not running)."""
        with self._lock:
            current = self.instances.get(instance.uuid)
            if current is None:
                raise exception.InstanceNotFound(instance_id=instance.uuid)
            if allowed is not None and current not in allowed:
                raise exception.InstanceInvalidState(
                    action=action, instance_uuid=instance.uuid, attr="power_state",
                    state=states.POWER_STATE_NAMES.get(current, current))
            self.instances[instance.uuid] = state
            if message:
                self._log(instance.uuid, message)
            if state == states.RUNNING and current in states.POWERED_OFF:
                self._boot_log(instance.uuid)
            if state not in _CONSOLE_UP:
                self._hang_up_consoles(instance.uuid)
            self._save(instance.uuid)

    def _connected(self, instance: Instance,
                   block_device_info: list[VolumeDevice] | None) -> None:
        """The guest's volumes are those it is made with, as connected to this host,
        each on a port of its own but the root (caller holds the lock)."""
        self.volumes.pop(instance.uuid, None)
        self.ports.pop(instance.uuid, None)
        self.nics.pop(instance.uuid, None)  # made anew: all its NICs on the root bus
        if block_device_info:
            self.volumes[instance.uuid] = {device.serial: device.connection_info
                                           for device in block_device_info}
            root = root_volume(block_device_info)
            ports = self.ports[instance.uuid] = {root.serial: None} if root else {}
            for device in block_device_info:
                if device is not root:
                    ports[device.serial] = _free_port(ports, {})

    def _boot_log(self, instance_uuid: str) -> None:
        """What a small Linux guest prints as it comes up (caller holds the lock)."""
        for line in ("Linux version 6.1.0-fake (novalite fake driver)",
                     "Run /init as init process", f"novalite-fake login: {instance_uuid}"):
            self._log(instance_uuid, line)

    def _log(self, instance_uuid: str, line: str) -> None:
        self.consoles[instance_uuid].append(
            f"[{time.monotonic() - self._started:12.6f}] {line}")

    def destroy(self, ctx: Any, instance: Instance, destroy_disks: bool = True) -> None:
        with self._lock:
            self.instances.pop(instance.uuid, None)
            self.consoles.pop(instance.uuid, None)
            self.volumes.pop(instance.uuid, None)
            self.ports.pop(instance.uuid, None)
            self.nics.pop(instance.uuid, None)
            self.volume_chains.pop(instance.uuid, None)
            self._hang_up_consoles(instance.uuid)
            self._save(instance.uuid)


def _merged(chain: list[str], file_to_merge: str | None,
            merge_target_file: str | None) -> list[str] | None:
    """The chain once the file is merged away, or None where the merge cannot be: a
    pull into the active file onto file_to_merge (None: onto nothing), or a commit of
    file_to_merge into merge_target_file right below it, never the active file."""
    *backing, active = chain
    if merge_target_file is None:
        if file_to_merge is None:
            return [active]
        if file_to_merge not in backing:
            return None
        return [*backing[:backing.index(file_to_merge) + 1], active]
    if file_to_merge not in backing or merge_target_file not in backing or \
            backing.index(file_to_merge) != backing.index(merge_target_file) + 1:
        return None
    return [name for name in chain if name != file_to_merge]


def _free_port(volumes: dict[str, int | None], nics: dict[str, int]) -> int:
    """The first root port no volume or attached NIC sits on, as the qemu driver picks
    it."""
    used = {*volumes.values(), *nics.values()}
    return next(index for index in range(len(used) + 1) if index not in used)
