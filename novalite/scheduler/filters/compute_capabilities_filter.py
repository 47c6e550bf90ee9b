"""ComputeCapabilitiesFilter: flavor extra specs that name a host capability must match it.

A key applies when it is `capabilities:<path>` (a path into the host state, its stats or
its JSON cpu_info, e.g. `capabilities:cpu_info:arch`), or an unscoped key that is a host
state attribute or stat (e.g. `hypervisor_type`). Other keys are another filter's business.
Values use the extra_specs_ops language (`>= 2`, `<in> avx2`, `<or> a <or> b`, ...).
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from novalite.objects.request_spec import RequestSpec
from novalite.scheduler.filters import BaseHostFilter, extra_specs_ops
from novalite.scheduler.host_state import HostState
from novalite.scheduler.host_table import HostTable


def _capability(host_state: Any, scope: list[str]) -> Any:
    cap = host_state
    for name in scope:
        if isinstance(cap, str):
            try:
                cap = json.loads(cap)
            except ValueError:
                return None
        if isinstance(cap, dict):
            cap = cap.get(name)
        else:
            found = getattr(cap, name, None)
            cap = found if found is not None else getattr(cap, "stats", {}).get(name)
        if cap is None:
            return None
    return cap


def _requirements(extra_specs: dict[str, str]) -> list[tuple[list[str], str]]:
    reqs = []
    for key, req in extra_specs.items():
        if key == "hw:maxphysaddr_bits":  # Nova reads it as a cpu_info capability
            reqs.append((["cpu_info", "maxphysaddr", "bits"], f">= {req}"))
        scope = key.split(":")
        if len(scope) > 1 and scope[0] == "capabilities":
            reqs.append((scope[1:], req))
        elif len(scope) == 1:
            reqs.append((scope, req))
    return reqs


class ComputeCapabilitiesFilter(BaseHostFilter):
    run_filter_once_per_request = True

    def host_passes(self, host_state: HostState, spec: RequestSpec) -> bool:
        for scope, req in _requirements(spec.flavor.extra_specs):
            if len(scope) == 1 and not (hasattr(host_state, scope[0])
                                        or scope[0] in host_state.stats):
                continue  # an unscoped key that is no capability: not ours to judge
            cap = _capability(host_state, scope)
            if cap is None or not extra_specs_ops.match(str(cap), req):
                return False
        return True

    def filter_array(self, table: HostTable, rows: np.ndarray,
                     spec: RequestSpec) -> np.ndarray | None:
        if _requirements(spec.flavor.extra_specs):
            return None  # a capability may be any host field: host by host
        return np.ones(len(rows), dtype=bool)
