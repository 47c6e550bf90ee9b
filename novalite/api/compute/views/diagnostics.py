"""Diagnostics views: Nova's 2.48 standard form, and the older one keyed as Nova's libvirt
driver keyed it (cpu<N>_time, memory, vd<x>_read, ...), derived from the same figures."""

from __future__ import annotations

import dataclasses
import string
from typing import Any

from novalite.objects.diagnostics import Diagnostics


def standard(found: Diagnostics) -> dict[str, Any]:
    return {
        "state": found.state, "driver": found.driver, "hypervisor": found.hypervisor,
        "hypervisor_os": found.hypervisor_os, "uptime": found.uptime,
        "config_drive": found.config_drive, "num_cpus": len(found.cpu_details),
        "num_nics": len(found.nic_details), "num_disks": len(found.disk_details),
        "memory_details": {"maximum": found.memory_maximum_mb, "used": found.memory_used_mb},
        "cpu_details": [dataclasses.asdict(c) for c in found.cpu_details],
        "nic_details": [dataclasses.asdict(n) for n in found.nic_details],
        "disk_details": [dataclasses.asdict(d) for d in found.disk_details],
    }


def legacy(found: Diagnostics) -> dict[str, Any]:
    body: dict[str, Any] = {f"cpu{c.id}_time": c.time for c in found.cpu_details}
    if found.memory_maximum_mb is not None:
        body["memory"] = found.memory_maximum_mb * 1024  # KiB, as libvirt counts
    for letter, disk in zip(string.ascii_lowercase, found.disk_details, strict=False):
        body.update({f"vd{letter}_read": disk.read_bytes,
                     f"vd{letter}_read_req": disk.read_requests,
                     f"vd{letter}_write": disk.write_bytes,
                     f"vd{letter}_write_req": disk.write_requests,
                     f"vd{letter}_errors": disk.errors_count})
    for index, nic in enumerate(found.nic_details):
        body.update({f"tap{index}_rx": nic.rx_octets, f"tap{index}_rx_packets": nic.rx_packets,
                     f"tap{index}_rx_drop": nic.rx_drop, f"tap{index}_rx_errors": nic.rx_errors,
                     f"tap{index}_tx": nic.tx_octets, f"tap{index}_tx_packets": nic.tx_packets,
                     f"tap{index}_tx_drop": nic.tx_drop, f"tap{index}_tx_errors": nic.tx_errors})
    return body
