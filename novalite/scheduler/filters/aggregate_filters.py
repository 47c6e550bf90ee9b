"""Filters driven by host aggregate metadata (Nova's Aggregate* family and the
AvailabilityZoneFilter of the releases before placement took it over)."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar, TypeVar

import numpy as np

from novalite.conf import CONF
from novalite.objects.request_spec import RequestSpec
from novalite.scheduler import aggregates
from novalite.scheduler.filters import BaseHostFilter, extra_specs_ops
from novalite.scheduler.filters.resource_filters import (
    CoreFilter,
    DiskFilter,
    RamFilter,
    RatioFilter,
)
from novalite.scheduler.host_state import HostState
from novalite.scheduler.host_table import HostTable

T = TypeVar("T")
_SCOPE = "aggregate_instance_extra_specs"
_NO_VALUE = float("nan")  # one object, so the table's cache recognises it


def _per_aggregate_set(self: BaseHostFilter, table: HostTable, rows: np.ndarray,
                       spec: RequestSpec) -> np.ndarray:
    """For filters that read only the host's aggregates: once per distinct set."""
    return table.per_aggregate_set(rows, lambda state: self.host_passes(state, spec))



class AggregateInstanceExtraSpecsFilter(BaseHostFilter):
    """Flavor extra specs (unscoped or `aggregate_instance_extra_specs:`) must match the
    metadata of the host's aggregates; a key the aggregates lack fails the host."""

    def host_passes(self, host_state: HostState, spec: RequestSpec) -> bool:
        for key, req in spec.flavor.extra_specs.items():
            scope = key.split(":", 1)
            if len(scope) > 1:
                if scope[0] != _SCOPE:
                    continue
                key = scope[1]
            found = aggregates.values(host_state, key)
            if not found or not any(extra_specs_ops.match(v, req) for v in found):
                return False
        return True

    filter_array = _per_aggregate_set


class AggregateMultiTenancyIsolation(BaseHostFilter):
    """Hosts in aggregates with `filter_tenant_id*` keys take only those projects."""

    def host_passes(self, host_state: HostState, spec: RequestSpec) -> bool:
        allowed: set[str] = set()
        for agg in host_state.aggregates:
            for key, value in agg.metadata.items():
                if key.startswith("filter_tenant_id"):
                    allowed.update(v.strip() for v in value.split(","))
        return not allowed or spec.project_id in allowed

    filter_array = _per_aggregate_set


class AggregateTypeAffinityFilter(BaseHostFilter):
    """Aggregates with `instance_type` (a comma list of flavor names) take only those."""

    def host_passes(self, host_state: HostState, spec: RequestSpec) -> bool:
        for value in aggregates.values(host_state, "instance_type"):
            if spec.flavor.name not in [v.strip() for v in value.split(",")]:
                return False
        return True

    filter_array = _per_aggregate_set


class AggregateImagePropertiesIsolation(BaseHostFilter):
    """Aggregate metadata keys that are also image properties must match the image."""

    def host_passes(self, host_state: HostState, spec: RequestSpec) -> bool:
        props = spec.image.properties if spec.image else {}
        for agg in host_state.aggregates:
            for key, value in agg.metadata.items():
                if key in props and str(props[key]) not in \
                        [v.strip() for v in value.split(",")]:
                    return False
        return True

    filter_array = _per_aggregate_set


class AvailabilityZoneFilter(BaseHostFilter):
    """The requested zone: the host's aggregates' `availability_zone`, or
    [DEFAULT] default_availability_zone for hosts in none."""

    run_filter_once_per_request = True

    def host_passes(self, host_state: HostState, spec: RequestSpec) -> bool:
        if not spec.availability_zone:
            return True
        zones = aggregates.values(host_state, "availability_zone") or \
            {CONF.default_availability_zone}
        return spec.availability_zone in zones

    def filter_array(self, table: HostTable, rows: np.ndarray,
                     spec: RequestSpec) -> np.ndarray:
        if not spec.availability_zone:
            return np.ones(len(rows), dtype=bool)
        return table.per_aggregate_set(
            rows, lambda state: self.host_passes(state, spec), key=(
                "zone", spec.availability_zone, CONF.default_availability_zone))


class AggregateNumInstancesFilter(BaseHostFilter):
    def host_passes(self, host_state: HostState, spec: RequestSpec) -> bool:
        limit = aggregates.min_number(host_state, "max_instances_per_host",
                                      CONF.filter_scheduler.max_instances_per_host, int)
        return host_state.num_instances < limit

    def filter_array(self, table: HostTable, rows: np.ndarray,
                     spec: RequestSpec) -> np.ndarray:
        limit = table.aggregate_min("max_instances_per_host",
                                    CONF.filter_scheduler.max_instances_per_host, int)
        return table.column("num_instances")[rows] < limit[rows]


class AggregateIoOpsFilter(BaseHostFilter):
    def host_passes(self, host_state: HostState, spec: RequestSpec) -> bool:
        limit = aggregates.min_number(host_state, "max_io_ops_per_host",
                                      CONF.filter_scheduler.max_io_ops_per_host, int)
        return host_state.num_io_ops < limit

    def filter_array(self, table: HostTable, rows: np.ndarray,
                     spec: RequestSpec) -> np.ndarray:
        limit = table.aggregate_min("max_io_ops_per_host",
                                    CONF.filter_scheduler.max_io_ops_per_host, int)
        return table.column("num_io_ops")[rows] < limit[rows]


class _AggregateRatio(RatioFilter):
    """The legacy Aggregate{Ram,Core,Disk}Filter: the resource filter it is mixed into,
    with the smallest `ratio_key` the host's aggregates set, else the host's own."""

    ratio_key: ClassVar[str]

    def host_passes(self, host_state: HostState, spec: RequestSpec) -> bool:
        return self._with_aggregate_ratio(host_state, lambda: super(_AggregateRatio, self)
                                          .host_passes(host_state, spec))

    def explain(self, host_state: HostState, spec: RequestSpec) -> str:
        return self._with_aggregate_ratio(host_state, lambda: super(_AggregateRatio, self)
                                          .explain(host_state, spec))

    def _with_aggregate_ratio(self, host_state: HostState, call: Callable[[], T]) -> T:
        own = getattr(host_state, self.ratio_key)
        ratio = aggregates.min_number(host_state, self.ratio_key, own)
        setattr(host_state, self.ratio_key, ratio)
        try:
            return call()
        finally:
            setattr(host_state, self.ratio_key, own)

    def filter_array(self, table: HostTable, rows: np.ndarray, spec: RequestSpec,
                     ratio: np.ndarray | None = None) -> np.ndarray:
        found = table.aggregate_min(self.ratio_key, _NO_VALUE)[rows]
        own = table.column(self.ratio_key)[rows] if ratio is None else ratio
        return super().filter_array(table, rows, spec, np.where(np.isnan(found), own, found))


class AggregateRamFilter(_AggregateRatio, RamFilter):
    ratio_key = "ram_allocation_ratio"


class AggregateCoreFilter(_AggregateRatio, CoreFilter):
    ratio_key = "cpu_allocation_ratio"


class AggregateDiskFilter(_AggregateRatio, DiskFilter):
    ratio_key = "disk_allocation_ratio"
