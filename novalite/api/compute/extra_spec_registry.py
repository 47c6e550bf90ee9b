"""Nova's registry of flavor extra specs, checked on writes from 2.86: a key in a
namespace Nova knows (hw:, quota:, resources:, trait:, ...) must be one of its specs and
its value of that spec's kind; keys in other namespaces, and plain keys, are free.

The specs are Nova's (nova/api/validation/extra_specs), written as a table: a name with
`{param}` placeholders and the value it takes.
"""

from __future__ import annotations

import dataclasses
import functools
import re

import os_resource_classes
import os_traits

from novalite import strutils
from novalite.api.faults import HTTPFault

_CPU_SET = r"\^?\d+((-\d+)?(,\^?\d+(-\d+)?)?)*"
_GROUP = r"([a-zA-Z0-9_-]{1,64})?"
# placeholder -> the regular expression it stands for in a name
_PARAMS = {"num": r"\d+", "group": _GROUP, "name": r"[A-Z0-9_]+", "key": r".+",
           "filter": r"(:\w+)*"}


def _regex(name: str) -> re.Pattern[str]:
    parts = re.split(r"\{(\w+)\}", name)
    return re.compile("".join(re.escape(p) if i % 2 == 0 else f"(?:{_PARAMS[p]})"
                              for i, p in enumerate(parts)))


@dataclasses.dataclass(frozen=True)
class Spec:
    name: str  # e.g. "hw:numa_cpus.{num}"
    kind: type = str  # int, str or bool
    enum: tuple[str, ...] = ()
    pattern: str | None = None
    minimum: int | None = None
    maximum: int | None = None

    @functools.cached_property
    def regex(self) -> re.Pattern[str]:
        return _regex(self.name)

    def check(self, value: str) -> None:
        if self.kind is bool:
            if value.strip().lower() not in strutils.WORDS:
                _fail(f"'{value}' is not a valid boolean-like value.")
        elif self.kind is int:
            self._check_int(value)
        elif self.pattern and not re.fullmatch(self.pattern, value):
            _fail(f"'{value}' is not of the format '{self.pattern}'.")
        elif self.enum and value not in self.enum:
            _fail(f"'{value}' is not one of: {', '.join(self.enum)}.")

    def _check_int(self, value: str) -> None:
        try:
            number = int(value)
        except ValueError:
            _fail(f"'{value}' is not a valid integer value.")
        if self.maximum is not None and number > self.maximum:
            _fail(f"'{value}' is greater than the max value of '{self.maximum}'.")
        if self.minimum is not None and number < self.minimum:
            _fail(f"'{value}' is less than the min value of '{self.minimum}'.")


def _fail(reason: str) -> None:
    raise HTTPFault(400, f"Validation failed; {reason}")


def _bools(*names: str) -> list[Spec]:
    return [Spec(n, bool) for n in names]


def _ints(minimum: int | None, *names: str) -> list[Spec]:
    return [Spec(n, int, minimum=minimum) for n in names]


_HW = [
    *_bools("hw:cpu_realtime", "hw:hide_hypervisor_id", "hw:locked_memory", "hw:boot_menu",
            "hw:vif_multiqueue_enabled", "hw:mem_encryption", "hw:pmu",
            "hw:virtio_packed_ring", "hw:ephemeral_encryption"),
    Spec("hw:cpu_realtime_mask", pattern=r"(\^)?\d+((-\d+)?(,\^?\d+(-\d+)?)?)*"),
    Spec("hw:cpu_policy", enum=("dedicated", "shared", "mixed")),
    Spec("hw:cpu_thread_policy", enum=("prefer", "isolate", "require")),
    Spec("hw:emulator_threads_policy", enum=("isolate", "share")),
    Spec("hw:cpu_dedicated_mask", pattern=_CPU_SET),
    Spec("hw:mem_page_size", pattern=r"(large|small|any|\d+([kKMGT]i?)?(b|bit|B)?)"),
    Spec("hw:numa_nodes", int, minimum=1),
    Spec("hw:numa_cpus.{num}", pattern=_CPU_SET),
    Spec("hw:numa_mem.{num}", int, minimum=1),
    Spec("hw:pci_numa_affinity_policy", enum=("required", "preferred", "legacy", "socket")),
    *_ints(1, "hw:cpu_sockets", "hw:cpu_cores", "hw:cpu_threads", "hw:cpu_max_sockets",
           "hw:cpu_max_cores", "hw:cpu_max_threads"),
    Spec("hw:mem_encryption_model", enum=("amd-sev", "amd-sev-es", "amd-sev-snp")),
    Spec("hw:pmem", pattern=r"([a-zA-Z0-9_]+(,)?)+"),
    Spec("hw:serial_port_count", int, minimum=0),
    Spec("hw:tpm_model", enum=("tpm-tis", "tpm-crb")),
    Spec("hw:tpm_version", enum=("1.2", "2.0")),
    Spec("hw:tpm_secret_security", enum=("user", "host", "deployment")),
    Spec("hw:watchdog_action", enum=("none", "pause", "poweroff", "reset", "disabled")),
    Spec("hw:viommu_model", enum=("intel", "smmuv3", "virtio", "auto")),
    Spec("hw:sound_model", enum=("sb16", "es1370", "pcspk", "ac97", "ich6", "ich9", "usb",
                                 "virtio")),
    Spec("hw:usb_model", enum=("none", "nec-xhci", "qemu-xhci")),
    Spec("hw:redirected_usb_ports", int, minimum=0, maximum=15),
    Spec("hw:ephemeral_encryption_format", enum=("plain", "luks", "luksv2")),
    Spec("hw_rng:allowed", bool),
    *_ints(0, "hw_rng:rate_bytes", "hw_rng:rate_period", "hw_video:ram_max_mb"),
]

_QUOTA = [
    *_ints(0, "quota:cpu_shares", "quota:cpu_period"),
    Spec("quota:cpu_quota", int),
    *[spec for key in ("cpu", "memory", "disk_io", "vif") for spec in (
        Spec(f"quota:{key}_limit", int, minimum=0),
        Spec(f"quota:{key}_reservation", int),
        Spec(f"quota:{key}_shares_level", enum=("custom", "high", "normal", "low")),
        Spec(f"quota:{key}_shares_share", int, minimum=0))],
    *_ints(0, *(f"quota:disk_{stat}_{metric}_sec" for stat in ("read", "write", "total")
                for metric in ("bytes", "iops"))),
    *_ints(0, *(f"quota:vif_{stat}_{metric}" for stat in ("inbound", "outbound")
                for metric in ("average", "peak", "burst"))),
]

_CAPABILITIES = (
    "id", "uuid", "service_id", "host", "vcpus", "memory_mb", "local_gb", "vcpus_used",
    "memory_mb_used", "local_gb_used", "hypervisor_type", "hypervisor_version",
    "hypervisor_hostname", "free_ram_mb", "free_disk_gb", "current_workload",
    "running_vms", "disk_available_least", "host_ip", "mapped", "cpu_allocation_ratio",
    "ram_allocation_ratio", "disk_allocation_ratio", "total_usable_ram_mb",
    "total_usable_disk_gb", "disk_mb_used", "free_disk_mb", "vcpus_total",
    "num_instances", "num_io_ops", "failed_builds", "aggregates", "cell_uuid", "updated")
_FILTERED_CAPABILITIES = (
    "cpu_info", "metrics", "stats", "numa_topology", "supported_hv_specs",
    "pci_device_pools", "nodename", "pci_stats", "supported_instances", "limits",
    "instances")

_TRAIT_VALUES = ("required", "forbidden")

SPECS: tuple[Spec, ...] = (
    *_HW, *_QUOTA,
    Spec("accel:device_profile"),
    Spec("aggregate_instance_extra_specs:{key}"),
    *[Spec(f"capabilities:{c}") for c in _CAPABILITIES],
    *[Spec(f"capabilities:{c}{{filter}}") for c in _FILTERED_CAPABILITIES],
    Spec("hide_hypervisor_id", bool),
    Spec("group_policy", enum=("isolate", "none")),
    Spec("os:secure_boot", enum=("disabled", "required")),
    Spec("pci_passthrough:alias", pattern=r"[^:]+:\d+(?:\s*,\s*[^:]+:\d+)*"),
    Spec("resources{group}:CUSTOM_{name}", int),
    *[Spec(f"resources{{group}}:{rc}", int) for rc in os_resource_classes.STANDARDS],
    Spec("trait{group}:CUSTOM_{name}", enum=_TRAIT_VALUES),
    *[Spec(f"trait{{group}}:{t}", enum=_TRAIT_VALUES) for t in os_traits.get_traits()],
    Spec("vmware:hw_version"),
    Spec("vmware:storage_policy"),
)
_BY_NAME = {s.name: s for s in SPECS}
_NAMESPACES = tuple(_regex(ns) for ns in {s.name.split(":", 1)[0] for s in SPECS
                                           if ":" in s.name})


def validate(name: str, value: str) -> None:
    """Nova's order: the spec of that exact name, else the first whose pattern matches;
    none is an error only inside a namespace Nova knows."""
    spec = _BY_NAME.get(name) or next((s for s in SPECS if s.regex.fullmatch(name)), None)
    if spec is not None:
        spec.check(value)
        return
    namespace = name.split(":", 1)[0]
    if ":" in name and any(ns.fullmatch(namespace) for ns in _NAMESPACES):
        _fail(f"extra spec '{name}' does not appear to be a valid extra spec.")
