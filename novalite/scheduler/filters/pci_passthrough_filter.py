"""PciPassthroughFilter: a flavor asking for PCI devices (`pci_passthrough:alias`,
resolved through [pci] alias) needs a host whose device pools can give them all; other
requests pass every host."""

from __future__ import annotations

import logging

import numpy as np

from novalite import exception
from novalite.scheduler.filters import BaseHostFilter
from novalite.virt import pci

LOG = logging.getLogger(__name__)


def _requests(spec) -> tuple[pci.PciRequest, ...] | None:
    try:
        return pci.requests_from_flavor(spec.flavor, spec.image)
    except exception.Invalid as exc:
        LOG.debug("No host has the PCI devices of instance %s: %s", spec.instance_uuid,
                 exc.format_message())
        return None


class PciPassthroughFilter(BaseHostFilter):
    def host_passes(self, host_state, spec) -> bool:
        requests = _requests(spec)
        if requests is None:
            return False
        if not requests:
            return True
        return bool(host_state.pci_stats) and pci.support_requests(host_state.pci_stats,
                                                                   requests)

    def filter_array(self, table, rows, spec):
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
