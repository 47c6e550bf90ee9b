"""PCIWeigher: keep hosts with free PCI devices for the requests that need them. A host
weighs 100 - min(free devices, 99): hosts without devices weigh most, so requests without
PCI needs avoid PCI hosts and PCI requests stack onto the hosts with fewest free devices."""

from __future__ import annotations

import numpy as np

from novalite.hardware import pci
from novalite.objects.request_spec import RequestSpec
from novalite.scheduler.host_state import HostState
from novalite.scheduler.host_table import HostTable
from novalite.scheduler.weighers import BaseHostWeigher

MAX_DEVS = 100


class PCIWeigher(BaseHostWeigher):
    multiplier_option = "pci_weight_multiplier"

    def weigh(self, host_state: HostState, spec: RequestSpec) -> float:
        return MAX_DEVS - min(pci.free_devices(host_state.pci_stats), MAX_DEVS - 1)

    def weigh_array(self, table: HostTable, rows: np.ndarray,
                    spec: RequestSpec) -> np.ndarray | float:
        free = table.column("free_pci_devices")
        if not free.any():
            return float(MAX_DEVS)  # no host has PCI devices: all weigh the same
        return MAX_DEVS - np.minimum(free[rows], MAX_DEVS - 1)
