"""Filters driven by host aggregate metadata (Nova's Aggregate* family and the
AvailabilityZoneFilter of the releases before placement took it over)."""

from __future__ import annotations

import numpy as np

from novalite.conf import CONF
from novalite.scheduler import aggregates
from novalite.scheduler.filters import BaseHostFilter, extra_specs_ops
from novalite.scheduler.filters.resource_filters import CoreFilter, DiskFilter, RamFilter

_SCOPE = "aggregate_instance_extra_specs"
_NO_VALUE = float("nan")  # one object, so the table's cache recognises it


def _per_aggregate_set(self, table, rows, spec):
    """For filters that read only the host's aggregates: once per distinct set."""
    return table.per_aggregate_set(rows, lambda state: self.host_passes(state, spec))



class AggregateInstanceExtraSpecsFilter(BaseHostFilter):
    """Flavor extra specs (unscoped or `aggregate_instance_extra_specs:`) must match the
    metadata of the host's aggregates; a key the aggregates lack fails the host."""

    def host_passes(self, host_state, spec) -> bool:
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

    def host_passes(self, host_state, spec) -> bool:
        allowed = set()
        for agg in host_state.aggregates:
            for key, value in agg["metadata"].items():
                if key.startswith("filter_tenant_id"):
                    allowed.update(v.strip() for v in value.split(","))
        return not allowed or spec.project_id in allowed

    filter_array = _per_aggregate_set


class AggregateTypeAffinityFilter(BaseHostFilter):
    """Aggregates with `instance_type` (a comma list of flavor names) take only those."""

    def host_passes(self, host_state, spec) -> bool:
        for value in aggregates.values(host_state, "instance_type"):
            if spec.flavor.name not in [v.strip() for v in value.split(",")]:
                return False
        return True

    filter_array = _per_aggregate_set


class AggregateImagePropertiesIsolation(BaseHostFilter):
    """Aggregate metadata keys that are also image properties must match the image."""

    RUN_ON_REBUILD = True

    def host_passes(self, host_state, spec) -> bool:
        props = spec.image.properties if spec.image else {}
        for agg in host_state.aggregates:
            for key, value in agg["metadata"].items():
                if key in props and str(props[key]) not in \
                        [v.strip() for v in value.split(",")]:
                    return False
        return True

    filter_array = _per_aggregate_set


class AvailabilityZoneFilter(BaseHostFilter):
    """The requested zone: the host's aggregates' `availability_zone`, or
    [DEFAULT] default_availability_zone for hosts in none."""

    run_filter_once_per_request = True

    def host_passes(self, host_state, spec) -> bool:
        if not spec.availability_zone:
            return True
        zones = aggregates.values(host_state, "availability_zone") or \
            {CONF.default_availability_zone}
        return spec.availability_zone in zones

    def filter_array(self, table, rows, spec):
        if not spec.availability_zone:
            return np.ones(len(rows), dtype=bool)
        return table.per_aggregate_set(
            rows, lambda state: self.host_passes(state, spec), key=(
                "zone", spec.availability_zone, CONF.default_availability_zone))


class AggregateNumInstancesFilter(BaseHostFilter):
    def host_passes(self, host_state, spec) -> bool:
        limit = aggregates.min_number(host_state, "max_instances_per_host",
                                      CONF.filter_scheduler.max_instances_per_host, int)
        return host_state.num_instances < limit

    def filter_array(self, table, rows, spec):
        limit = table.aggregate_min("max_instances_per_host",
                                    CONF.filter_scheduler.max_instances_per_host, int)
        return table.column("num_instances")[rows] < limit[rows]


class AggregateIoOpsFilter(BaseHostFilter):
    def host_passes(self, host_state, spec) -> bool:
        limit = aggregates.min_number(host_state, "max_io_ops_per_host",
                                      CONF.filter_scheduler.max_io_ops_per_host, int)
        return host_state.num_io_ops < limit

    def filter_array(self, table, rows, spec):
        limit = table.aggregate_min("max_io_ops_per_host",
                                    CONF.filter_scheduler.max_io_ops_per_host, int)
        return table.column("num_io_ops")[rows] < limit[rows]


def _with_ratio(base: type, key: str) -> type:
    """The legacy Aggregate{Ram,Core,Disk}Filter: the base filter with the smallest
    ratio the host's aggregates set, else the host's own."""

    class Filter(base):
        def host_passes(self, host_state, spec) -> bool:
            own = getattr(host_state, key)
            ratio = aggregates.min_number(host_state, key, own)
            setattr(host_state, key, ratio)
            try:
                return super().host_passes(host_state, spec)
            finally:
                setattr(host_state, key, own)

        def filter_array(self, table, rows, spec):
            ratio = table.aggregate_min(key, _NO_VALUE)[rows]
            own = table.column(key)[rows]
            return super().filter_array(table, rows, spec, np.where(np.isnan(ratio), own, ratio))

    return Filter


class AggregateRamFilter(_with_ratio(RamFilter, "ram_allocation_ratio")):
    pass


class AggregateCoreFilter(_with_ratio(CoreFilter, "cpu_allocation_ratio")):
    pass


class AggregateDiskFilter(_with_ratio(DiskFilter, "disk_allocation_ratio")):
    pass
