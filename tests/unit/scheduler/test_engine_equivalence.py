"""The array engine chooses exactly as the per-host filters and weighers do.

Random clusters (resources, ratios, service status, hypervisors, aggregates with zones,
multipliers, limits and bad values, instances, NUMA cells, PCI devices, metrics, failed
builds) and random requests (flavors with NUMA and PCI needs, images, zones, server
groups, hints, retries, multi-create) under random isolation and metrics options: every
built-in filter's array form answers as host_passes on every host, every weigher's array
form as weigh and weight_multiplier, and a whole selection with the array engine equals
the one made host by host.
"""

from __future__ import annotations

import copy
import random

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from novalite.hardware import numa
from novalite.objects.image import ImageMeta
from novalite.scheduler import filters as filters_pkg
from novalite.scheduler import weighers as weighers_pkg
from novalite.scheduler.filter_scheduler import FilterScheduler
from novalite.scheduler.host_manager import HostManager
from novalite.scheduler.host_table import HostTable
from tests import builders

INSTANCES = [f"inst-{i}" for i in range(8)]
ZONES = ["az1", "az2", "nova"]
SUPPORTED = [[("x86_64", "fake", "hvm")], [("aarch64", "qemu", "hvm")],
             [("x86_64", "qemu", "hvm"), ("i686", "qemu", "hvm")]]
AGGREGATE_META = st.fixed_dictionaries({}, optional={
    "availability_zone": st.sampled_from(ZONES[:2]),
    "ram_weight_multiplier": st.sampled_from(["-1.0", "2.5", "0", "bad"]),
    "cpu_weight_multiplier": st.sampled_from(["3", "-0.5"]),
    "max_instances_per_host": st.sampled_from(["1", "5", "x"]),
    "max_io_ops_per_host": st.sampled_from(["0", "2"]),
    "ram_allocation_ratio": st.sampled_from(["0.5", "1.5"]),
    "cpu_allocation_ratio": st.sampled_from(["1.0", "16"]),
    "disk_allocation_ratio": st.sampled_from(["0.9", "2"]),
    "filter_tenant_id": st.sampled_from(["p1", "p2,p3"]),
    "instance_type": st.sampled_from(["m1.tiny", "m1.big, m1.tiny"]),
    "hw_vm_mode": st.sampled_from(["hvm", "xen"]),
    "pci_weight_multiplier": st.sampled_from(["0", "3"]),
    "build_failure_weight_multiplier": st.sampled_from(["10", "x"]),
})
# Two cells of 4 CPUs in sibling pairs; one cell of 4 with 3 pinned; none.
NUMA = [None, numa.evenly_split(8, 8192, 2, 2).to_dict(),
        {"cells": [{"id": 0, "cpuset": [0, 1, 2, 3], "memory": 4096,
                    "pinned_cpus": [0, 1, 2], "memory_usage": 1024}]}]
PCI = [[], [{"vendor_id": "8086", "product_id": "1520", "count": 1, "numa_node": 0}],
       [{"vendor_id": "8086", "product_id": "1520", "count": 2, "numa_node": 1},
        {"vendor_id": "10de", "product_id": "1eb8", "count": 1, "numa_node": None}]]
METRICS = [[], [{"name": "cpu.percent", "value": 30.0}],
           [{"name": "cpu.percent", "value": 70.0}, {"name": "mem", "value": 5.0}]]
ALIAS = '{"name": "nic", "vendor_id": "8086", "product_id": "1520"}'
OPTIONS = st.fixed_dictionaries({
    "isolated_images": st.sampled_from([[], ["img"], ["other"]]),
    "restrict": st.booleans(),
    "weight_setting": st.sampled_from([[], ["cpu.percent=1.0", "mem=-0.5"]]),
})


def _configure(conf, options) -> None:
    conf.set_override("isolated_images", options["isolated_images"], group="filter_scheduler")
    conf.set_override("isolated_hosts", ["h0", "h2"], group="filter_scheduler")
    conf.set_override("restrict_isolated_hosts_to_isolated_images", options["restrict"],
                      group="filter_scheduler")
    conf.set_override("weight_setting", options["weight_setting"], group="metrics")
    conf.set_override("required", False, group="metrics")
    conf.set_override("alias", [ALIAS], group="pci")


@st.composite
def clusters(draw):
    pool = [builders.aggregate(i, metadata=draw(AGGREGATE_META))
            for i in range(draw(st.integers(0, 4)))]
    states = []
    for i in range(draw(st.integers(1, 25))):
        state = builders.host_state(
            f"h{i}", uuid=f"node-{i}",
            vcpus=draw(st.sampled_from([0, 4, 16])),
            # Values that leave exactly what a flavor below asks for, to test the edges.
            vcpus_used=draw(st.sampled_from([0, 3, 12, 44, 60, 63, 64])),
            memory_mb_used=draw(st.sampled_from([0, 25024, 60928, 64512, 64513, 70000])),
            local_gb_used=draw(st.sampled_from([0, 124, 924, 1023, 1100])),
            cpu_allocation_ratio=draw(st.sampled_from([1.0, 4.0, 16.0])),
            ram_allocation_ratio=draw(st.sampled_from([1.0, 1.5])),
            disk_allocation_ratio=draw(st.sampled_from([1.0, 0.9])),
            running_vms=draw(st.integers(0, 60)),
            current_workload=draw(st.integers(0, 10)),
            hypervisor_version=draw(st.sampled_from([1, 2003000, 6001000])),
            supported_instances=draw(st.sampled_from(SUPPORTED)),
            cpu_info=draw(st.sampled_from(['{}', '{"maxphysaddr": {"bits": 42}}'])),
            host_ip=f"10.0.{i % 3}.{i}",
            numa_topology=draw(st.sampled_from(NUMA)),
            pci_stats=draw(st.sampled_from(PCI)),
            metrics=draw(st.sampled_from(METRICS)),
            stats=draw(st.sampled_from([{}, {"failed_builds": "2"}])),
        )
        state.service_up = draw(st.booleans())
        state.service_disabled = draw(st.booleans())
        state.aggregates = draw(st.lists(st.sampled_from(pool), unique_by=lambda a: a.id)
                                ) if pool else []
        state.instances = set(draw(st.lists(st.sampled_from(INSTANCES), max_size=3)))
        states.append(state)
    return states


@st.composite
def requests(draw):
    group = draw(st.one_of(st.none(), st.fixed_dictionaries({
        "policy": st.sampled_from(["affinity", "anti-affinity", "soft-affinity",
                                   "soft-anti-affinity"]),
        "hosts": st.lists(st.sampled_from([f"h{i}" for i in range(6)]), max_size=2),
        "members": st.lists(st.sampled_from(INSTANCES), max_size=4),
        "rules": st.sampled_from([{}, {"max_server_per_host": 2}]),
    })))
    hints = draw(st.fixed_dictionaries({}, optional={
        "same_host": st.lists(st.sampled_from(INSTANCES), min_size=1, max_size=2),
        "different_host": st.lists(st.sampled_from(INSTANCES), min_size=1, max_size=2),
    }))
    props = draw(st.fixed_dictionaries({}, optional={
        "hw_architecture": st.sampled_from(["x86_64", "aarch64", "amd64"]),
        "img_hv_type": st.sampled_from(["fake", "qemu"]),
        "hw_vm_mode": st.sampled_from(["hvm", "xen"]),
        "img_hv_requested_version": st.sampled_from([">=2.0", "<3"]),
        "hw_maxphysaddr_bits": st.sampled_from(["40", "48"]),
    }))
    flavor = builders.flavor(
        name=draw(st.sampled_from(["m1.tiny", "m1.big"])),
        memory_mb=draw(st.sampled_from([512, 4096, 40000])),
        vcpus=draw(st.sampled_from([1, 4, 20])),
        root_gb=draw(st.sampled_from([1, 100, 900])),
        extra_specs=draw(st.sampled_from([{}, {"hypervisor_type": "fake"},
                                          {"availability_zone": "az1"},
                                          {"hw:cpu_policy": "dedicated"},
                                          {"hw:numa_nodes": "2"},
                                          {"pci_passthrough:alias": "nic:1"},
                                          {"pci_passthrough:alias": "nic:2",
                                           "hw:numa_nodes": "1"}])))
    return builders.request_spec(
        instance_uuid=draw(st.sampled_from(INSTANCES)), flavor=flavor,
        image=ImageMeta(id="img", name="img", properties=props),
        project_id=draw(st.sampled_from(["p1", "p2"])),
        availability_zone=draw(st.sampled_from([None, *ZONES])),
        instance_group=group,
        scheduler_hints={k: v for k, v in hints.items()},
        retry=draw(st.sampled_from([None, {"num_attempts": 2, "hosts": [["h1", "h1"]]}])))


def _table(states) -> HostTable:
    table = HostTable(capacity=2)  # grows as hosts arrive
    for state in states:
        table.add(state)
    return table


def _all_filters():
    return [cls() for cls in filters_pkg.all_filters()]


def _all_weighers():
    return [cls() for cls in weighers_pkg.all_weighers()]


@pytest.mark.slow  # examples: the hypothesis profile's (tests/conftest.py)
@given(states=clusters(), spec=requests(), options=OPTIONS)
def test_every_filter_array_form_answers_as_host_passes(conf, states, spec, options):
    _configure(conf, options)
    table = _table(states)
    rows = np.arange(len(table))
    for flt in _all_filters():
        array = flt.filter_array(table, rows, spec)
        if array is not None:
            expected = [flt.host_passes(s, spec) for s in table.states]
            assert array.tolist() == expected, flt.name


@pytest.mark.slow  # examples: the hypothesis profile's (tests/conftest.py)
@given(states=clusters(), spec=requests(), options=OPTIONS)
def test_every_weigher_array_form_weighs_as_weigh(conf, states, spec, options):
    _configure(conf, options)
    table = _table(states)
    rows = np.arange(len(table))
    for weigher in _all_weighers():
        raw = weigher.weigh_array(table, rows, spec)
        if raw is not None:  # an array, or one number for every row
            assert np.broadcast_to(raw, len(rows)).tolist() == \
                [float(weigher.weigh(s, spec)) for s in table.states], weigher.name
        assert weigher.multipliers(table, rows).tolist() == \
            [weigher.weight_multiplier(s) for s in table.states], weigher.name


def _copy(state):
    """An equal, unbound copy with no limits recorded (init=False fields included,
    which dataclasses.replace would drop)."""
    copied = copy.copy(state)
    copied.__dict__.pop("_table", None)
    copied.__dict__.pop("_consumed", None)
    copied.limits = {}
    return copied


class _Static(HostManager):
    def __init__(self, table):
        super().__init__()
        self.table = table


@pytest.mark.slow  # examples: the hypothesis profile's (tests/conftest.py)
@given(states=clusters(), spec=requests(), count=st.integers(1, 4),
       subset=st.integers(1, 3), seed=st.integers(0, 2**16), options=OPTIONS)
def test_array_engine_selects_as_the_per_host_engine(conf, states, spec, count, subset,
                                                     seed, options):
    _configure(conf, options)
    conf.set_override("enabled_filters", [f.name for f in _all_filters()],
                      group="filter_scheduler")
    conf.set_override("host_subset_size", subset, group="filter_scheduler")
    spec.min_count = 1
    outcomes = []
    for vectorized in (True, False):
        # Each engine consumes its own, equal copy of the cluster.
        table = _table([_copy(s) for s in states])
        scheduler = FilterScheduler(_Static(table), vectorized=vectorized)
        random.seed(seed)
        try:
            chosen = scheduler.select(table, copy.deepcopy(spec),
                                      [f"new-{i}" for i in range(count)], True)
            outcomes.append([[(s.service_host, s.limits, s.decision) for s in host_list]
                             for host_list in chosen])
        except Exception as exc:  # noqa: BLE001 - NoValidHost's text is compared too
            outcomes.append(repr(exc))
        outcomes.append(table.column("free_ram_mb").tolist())
    assert outcomes[0] == outcomes[2]
    assert outcomes[1] == outcomes[3]
