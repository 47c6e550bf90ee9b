"""ImagePropertiesFilter: the host must support the image's architecture, hypervisor type
and VM mode (one of its supported_instances triples), the requested hypervisor version,
and the requested physical address bits."""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from novalite.conf import CONF
from novalite.objects.request_spec import RequestSpec
from novalite.scheduler.filters import BaseHostFilter
from novalite.scheduler.host_state import HostState
from novalite.scheduler.host_table import HostTable

# Nova's canonical names (nova/objects/fields.py) for the spellings images use.
_ARCH = {"amd64": "x86_64", "x86": "i686", "i386": "i686", "arm64": "aarch64"}
_HV_TYPE = {"xapi": "xen"}
_VM_MODE = {"hv": "hvm", "pv": "xen", "baremetal": "hvm"}
_OPS = {">=": operator.ge, "<=": operator.le, ">": operator.gt, "<": operator.lt,
        "==": operator.eq, "!=": operator.ne}


def _canonical(value: str | None, aliases: dict[str, str]) -> str | None:
    if not value:
        return None
    value = value.lower()
    return aliases.get(value, value)


def _version_tuple(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.strip().split("."))


def version_int_to_tuple(version: int) -> tuple[int, int, int]:
    """Nova encodes hypervisor versions as major * 1e6 + minor * 1e3 + micro."""
    return version // 1_000_000, version // 1_000 % 1_000, version % 1_000


def version_satisfies(version: int, predicate: str) -> bool:
    """`predicate` is like '>=6.0,<7.0' (Nova's img_hv_requested_version)."""
    have = version_int_to_tuple(version)
    for clause in predicate.split(","):
        clause = clause.strip()
        op = next((o for o in sorted(_OPS, key=len, reverse=True) if clause.startswith(o)),
                  "==")
        wanted = _version_tuple(clause[len(op):] if clause.startswith(op) else clause)
        width = max(len(wanted), 3)
        if not _OPS[op](have[:width], wanted + (0,) * (width - len(wanted))):
            return False
    return True


class ImagePropertiesFilter(BaseHostFilter):
    def host_passes(self, host_state: HostState, spec: RequestSpec) -> bool:
        props = spec.image.properties if spec.image else {}
        default_arch = CONF.filter_scheduler.image_properties_default_architecture
        wanted = (_canonical(props.get("hw_architecture", default_arch), _ARCH),
                  _canonical(props.get("img_hv_type"), _HV_TYPE),
                  _canonical(props.get("hw_vm_mode"), _VM_MODE))
        if not self._physaddr_fits(host_state, props):
            return False
        if not any(wanted):
            return True
        requested = props.get("img_hv_requested_version")
        version_ok = (not (requested and host_state.hypervisor_version)
                      or version_satisfies(host_state.hypervisor_version, requested))
        return version_ok and any(
            all(w is None or w in [_canonical(v, {}) for v in supported] for w in wanted)
            for supported in host_state.supported_instances)

    def filter_array(self, table: HostTable, rows: np.ndarray,
                     spec: RequestSpec) -> np.ndarray:
        # Reads only the hypervisor fields that define a host class: once per class.
        return table.per_class(rows, lambda state: self.host_passes(state, spec))

    @staticmethod
    def _physaddr_fits(host_state: HostState, props: dict[str, Any]) -> bool:
        bits = props.get("hw_maxphysaddr_bits")
        if not bits:
            return True
        host_bits = (host_state.cpu_info.get("maxphysaddr") or {}).get("bits")
        return host_bits is not None and int(bits) <= int(host_bits)
