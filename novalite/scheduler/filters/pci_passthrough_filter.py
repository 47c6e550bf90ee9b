"""PciPassthroughFilter: a flavor asking for PCI devices (`pci_passthrough:alias`,
resolved through [pci] alias) needs a host whose device pools can give them all; other
requests pass every host."""

from __future__ import annotations

import logging

import numpy as np

from novalite import exception
from novalite.hardware import pci
from novalite.objects.request_spec import RequestSpec
from novalite.scheduler.filters import BaseHostFilter
from novalite.scheduler.host_state import HostState
from novalite.scheduler.host_table import HostTable

LOG = logging.getLogger(__name__)


def _requests(spec: RequestSpec) -> tuple[pci.PciRequest, ...] | None:
    try:
        return pci.requests_from_flavor(spec.flavor, spec.image)
    except exception.Invalid as exc:
        LOG.debug("No host has the PCI devices of instance %s: %s", spec.instance_uuid,
                 exc.format_message())
        return None


class PciPassthroughFilter(BaseHostFilter):
    def host_passes(self, host_state: HostState, spec: RequestSpec) -> bool:
        requests = _requests(spec)
        if requests is None:
            return False
        if not requests:
            return True
        return bool(host_state.pci_stats) and pci.support_requests(host_state.pci_stats,
                                                                   requests)

    def explain(self, host_state: HostState, spec: RequestSpec) -> str:
        requests = _requests(spec)
        if requests is None:
            return "the request's PCI alias is invalid"
        wanted = sum(r.count for r in requests)
        return f"{pci.free_devices(host_state.pci_stats)} PCI devices free, {wanted} wanted"

    def filter_array(self, table: HostTable, rows: np.ndarray, spec: RequestSpec) -> np.ndarray:
        requests = _requests(spec)
        if requests is None:
            return np.zeros(len(rows), dtype=bool)
        if not requests:
            return np.ones(len(rows), dtype=bool)
        has_devices = table.column("free_pci_devices")[rows] > 0
        passed = np.zeros(len(rows), dtype=bool)
        candidates = np.flatnonzero(has_devices)
        passed[candidates] = table.per_key(
            rows[candidates], lambda s: s.pci_stats,
            lambda s: pci.support_requests(s.pci_stats, requests))
        return passed
