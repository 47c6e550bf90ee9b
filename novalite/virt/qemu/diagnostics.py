"""A running guest's diagnostics as Nova's libvirt driver gathers them: CPU time per vCPU
(the host thread behind each, from /proc), the disks' I/O counters (QMP
query-blockstats), the memory the flavor gives and the host memory QEMU holds. The
guests have no network interface yet, so no NIC figures."""

from __future__ import annotations

import os
from typing import Any, cast

from novalite.objects import states
from novalite.objects.diagnostics import CpuDiagnostics, Diagnostics, DiskDiagnostics
from novalite.objects.instance import Instance
from novalite.virt.qemu.guest import Guest

_TICKS = os.sysconf("SC_CLK_TCK")
_NS_PER_TICK = 1_000_000_000 // _TICKS


def _stat_fields(path: str) -> list[str]:
    """/proc/<...>/stat after the command name (which may hold spaces): field 3 first."""
    with open(path) as f:
        return f.read().rsplit(")", 1)[1].split()


def _cpu_time_ns(pid: int, thread: int) -> int | None:
    try:
        fields = _stat_fields(f"/proc/{pid}/task/{thread}/stat")
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) * _NS_PER_TICK  # utime + stime


def _uptime_seconds(pid: int) -> int | None:
    try:
        started_ticks = int(_stat_fields(f"/proc/{pid}/stat")[19])
        with open("/proc/uptime") as f:
            host_up = float(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None
    return max(0, int(host_up - started_ticks / _TICKS))


def _rss_mb(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) // 1024
    except OSError:
        return None
    return None


def _query(guest: Guest, command: str) -> list[dict[str, Any]]:
    return cast(list[dict[str, Any]], guest.qmp(command) or [])


def _disks(guest: Guest) -> list[DiskDiagnostics]:
    found = []
    for device in _query(guest, "query-blockstats"):
        stats = device.get("stats") or {}
        if not stats.get("rd_operations") and not device.get("qdev"):
            continue  # a drive without a device (an empty slot)
        found.append(DiskDiagnostics(
            read_bytes=stats.get("rd_bytes"), read_requests=stats.get("rd_operations"),
            write_bytes=stats.get("wr_bytes"), write_requests=stats.get("wr_operations"),
            errors_count=sum(stats.get(k, 0) for k in (
                "failed_rd_operations", "failed_wr_operations", "failed_flush_operations"))))
    return found


def gather(guest: Guest, instance: Instance, accel: str) -> Diagnostics:
    pid = guest.pid()
    details = [CpuDiagnostics(id=cpu.get("cpu-index"),
                              time=_cpu_time_ns(pid, cpu["thread-id"]) if pid else None,
                              utilisation=None)
               for cpu in _query(guest, "query-cpus-fast")]
    flavor = instance.flavor
    return Diagnostics(
        state=states.POWER_STATE_NAMES.get(guest.power_state(), "pending"),
        hypervisor="kvm" if accel == "kvm" else "qemu", hypervisor_os="linux",
        uptime=_uptime_seconds(pid) if pid else None,
        memory_maximum_mb=flavor.memory_mb if flavor else None,
        memory_used_mb=_rss_mb(pid) if pid else None,
        cpu_details=details, disk_details=_disks(guest))
