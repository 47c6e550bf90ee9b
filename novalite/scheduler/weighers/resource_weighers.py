"""RAMWeigher, CPUWeigher, DiskWeigher: prefer the host with the most free of each
(spread); a negative multiplier prefers the fullest (stack)."""

import numpy as np

from novalite.objects.request_spec import RequestSpec
from novalite.scheduler.host_state import HostState
from novalite.scheduler.host_table import HostTable
from novalite.scheduler.weighers import BaseHostWeigher


class RAMWeigher(BaseHostWeigher):
    minval = 0

    multiplier_option = "ram_weight_multiplier"

    def weigh(self, host_state: HostState, spec: RequestSpec) -> float:
        return host_state.free_ram_mb

    def weigh_array(self, table: HostTable, rows: np.ndarray,
                    spec: RequestSpec) -> np.ndarray | float:
        return table.column("free_ram_mb")[rows]


class CPUWeigher(BaseHostWeigher):
    minval = 0

    multiplier_option = "cpu_weight_multiplier"

    def weigh(self, host_state: HostState, spec: RequestSpec) -> float:
        return host_state.vcpus_total * host_state.cpu_allocation_ratio - host_state.vcpus_used

    def weigh_array(self, table: HostTable, rows: np.ndarray,
                    spec: RequestSpec) -> np.ndarray | float:
        return (table.column("vcpus_total")[rows] * table.column("cpu_allocation_ratio")[rows]
                - table.column("vcpus_used")[rows])


class DiskWeigher(BaseHostWeigher):
    minval = 0

    multiplier_option = "disk_weight_multiplier"

    def weigh(self, host_state: HostState, spec: RequestSpec) -> float:
        return host_state.free_disk_mb

    def weigh_array(self, table: HostTable, rows: np.ndarray,
                    spec: RequestSpec) -> np.ndarray | float:
        return table.column("free_disk_mb")[rows]
