"""What a driver knows of a running guest (Nova's Diagnostics object), for
GET /servers/{id}/diagnostics: the 2.48 standard form, from which the older free-form
view is also derived."""

from __future__ import annotations

import dataclasses

from novalite.objects import base


@base.register
class CpuDiagnostics(base.NovaliteObject):
    VERSION = "1.0"

    id: int | None = None
    time: int | None = None  # nanoseconds of CPU time used
    utilisation: int | None = None  # percent


@base.register
class NicDiagnostics(base.NovaliteObject):
    VERSION = "1.0"

    mac_address: str | None = None
    rx_octets: int | None = None
    rx_errors: int | None = None
    rx_drop: int | None = None
    rx_packets: int | None = None
    rx_rate: int | None = None
    tx_octets: int | None = None
    tx_errors: int | None = None
    tx_drop: int | None = None
    tx_packets: int | None = None
    tx_rate: int | None = None


@base.register
class DiskDiagnostics(base.NovaliteObject):
    VERSION = "1.0"

    read_bytes: int | None = None
    read_requests: int | None = None
    write_bytes: int | None = None
    write_requests: int | None = None
    errors_count: int | None = None


@base.register
class Diagnostics(base.NovaliteObject):
    VERSION = "1.0"

    state: str  # Nova's power state name: running, paused, shutdown, ...
    # Nova's schema knows only its own drivers' names: the qemu driver does what Nova's
    # libvirt driver does (with virt_type qemu), and the fake driver says so as Nova's does.
    driver: str = "libvirt"
    hypervisor: str | None = None
    hypervisor_os: str | None = None
    uptime: int | None = None  # seconds the guest has run
    config_drive: bool = False
    memory_maximum_mb: int | None = None
    memory_used_mb: int | None = None
    cpu_details: list[CpuDiagnostics] = dataclasses.field(default_factory=list)
    nic_details: list[NicDiagnostics] = dataclasses.field(default_factory=list)
    disk_details: list[DiskDiagnostics] = dataclasses.field(default_factory=list)
