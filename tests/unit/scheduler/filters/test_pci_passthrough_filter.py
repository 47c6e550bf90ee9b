"""Table-driven: PciPassthroughFilter with [pci] alias over hosts' device pools, and the
PCI NUMA affinity policies when NUMATopologyFilter fits a guest with PCI devices."""

import copy
import json

import numpy as np
import pytest

from novalite.hardware import numa
from novalite.objects.image import ImageMeta
from novalite.scheduler.filters.numa_topology_filter import NUMATopologyFilter
from novalite.scheduler.filters.pci_passthrough_filter import PciPassthroughFilter
from novalite.scheduler.host_table import HostTable
from tests import builders

ALIASES = [
    {"name": "nic", "vendor_id": "8086", "product_id": "1520", "device_type": "type-VF"},
    {"name": "gpu", "vendor_id": "10de", "product_id": "1eb8"},
    {"name": "gpu", "vendor_id": "10de", "product_id": "1eb9"},  # an alternative model
    {"name": "qat", "vendor_id": "8086", "product_id": "0443", "numa_policy": "required"},
    {"name": "pf", "vendor_id": "8086", "product_id": "1521", "device_type": "type-PF"},
]


def pool(vendor="8086", product="1520", count=1, numa_node=0, dev_type="type-VF", **tags):
    return {"vendor_id": vendor, "product_id": product, "count": count,
            "numa_node": numa_node, "dev_type": dev_type, **tags}


def spec(alias, image=None, **extra_specs):
    specs = {"pci_passthrough:alias": alias} if alias else {}
    specs.update({k.replace("__", ":"): v for k, v in extra_specs.items()})
    return builders.request_spec(flavor=builders.flavor(extra_specs=specs),
                                 image=ImageMeta(id="img", properties=image or {}))


@pytest.fixture
def aliases(conf):
    conf.set_override("alias", [json.dumps(a) for a in ALIASES], group="pci")
    return conf


def passes(flt, state, request):
    answer = flt.host_passes(state, request)
    table = HostTable()
    unbound = copy.copy(state)
    unbound.limits = {}
    table.add(unbound)
    array = flt.filter_array(table, np.arange(1), request)
    assert array is None or array.tolist() == [answer]
    return answer


@pytest.mark.parametrize(("pools", "alias", "expected"), [
    ([], None, True),                                            # no PCI request
    ([], "nic:1", False),                                        # no devices at all
    ([pool(count=2)], "nic:2", True),
    ([pool(count=2)], "nic:3", False),
    ([pool(count=1), pool(count=1, numa_node=1)], "nic:2", True),  # from two pools
    ([pool(product="1521", dev_type="type-PF")], "nic:1", False),  # wrong product
    ([pool(dev_type="type-PCI")], "nic:1", False),               # not a VF
    ([pool(vendor="10de", product="1EB9", dev_type="type-PCI")], "gpu:1", True),  # any case
    ([pool(count=1), pool(vendor="10de", product="1eb8", dev_type="type-PCI")],
     "nic:1, gpu:1", True),
    ([pool(count=1)], "nic:1, gpu:1", False),
    ([pool(product="1521", dev_type="type-PF")], "pf:1", True),
    ([pool(count=1, remote_managed="true")], "nic:1", False),    # not asked for
    ([pool(count=1)], "nope:1", False),                          # alias not defined
    ([pool(count=1)], "nic:x", False),                           # bad count
])
def test_pci_passthrough_filter(aliases, pools, alias, expected):
    state = builders.host_state(pci_stats=pools)
    assert passes(PciPassthroughFilter(), state, spec(alias)) is expected


def test_an_invalid_alias_definition_fits_nowhere(conf):
    conf.set_override("alias", ['{"name": "nic", "vendor_id": "8086"}'], group="pci")
    state = builders.host_state(pci_stats=[pool()])
    assert not passes(PciPassthroughFilter(), state, spec("nic:1"))


TWO_CELLS = numa.evenly_split(8, 8192, 2, 1).to_dict()


@pytest.mark.parametrize(("pools", "alias", "policy", "expected"), [
    # The guest's one NUMA node gets a host cell; its devices must be there (required),
    # there or without NUMA information (legacy), or anywhere (preferred).
    ([pool(numa_node=1)], "nic:1", None, True),          # legacy: cell 1 has it
    ([pool(count=1, numa_node=0), pool(count=1, numa_node=1)], "nic:2", None, False),
    ([pool(count=1, numa_node=0), pool(count=1, numa_node=1)], "nic:2", "preferred", True),
    ([pool(count=1, numa_node=0), pool(count=1, numa_node=None)], "nic:2", None, True),
    ([pool(count=1, numa_node=0), pool(count=1, numa_node=None)], "nic:2", "required",
     False),
    ([pool(vendor="8086", product="0443", dev_type="type-PCI", count=1, numa_node=None)],
     "qat:1", None, False),                               # the alias requires affinity
    ([pool(count=1, numa_node=0), pool(count=1, numa_node=1)], "nic:2", "socket", False),
])
def test_pci_numa_affinity_in_the_numa_fit(aliases, pools, alias, policy, expected):
    extra = {"hw__numa_nodes": "1"}
    if policy:
        extra["hw__pci_numa_affinity_policy"] = policy
    state = builders.host_state(pci_stats=pools, numa_topology=TWO_CELLS)
    assert passes(NUMATopologyFilter(), state, spec(alias, **extra)) is expected
    assert passes(PciPassthroughFilter(), state, spec(alias, **extra))  # no NUMA view


def test_the_image_policy_must_agree_with_the_flavor(aliases):
    state = builders.host_state(pci_stats=[pool(numa_node=1)], numa_topology=TWO_CELLS)
    request = spec("nic:1", image={"hw_pci_numa_affinity_policy": "required"},
                   hw__numa_nodes="1", hw__pci_numa_affinity_policy="preferred")
    assert not passes(NUMATopologyFilter(), state, request)


def test_consuming_takes_the_devices(aliases):
    state = builders.host_state(pci_stats=[pool(count=3)])
    request = spec("nic:2")
    state.consume_from_request(request)
    assert [p.count for p in state.pci_stats] == [1]
    assert not PciPassthroughFilter().host_passes(state, request)
    state.release_request(request)
    assert PciPassthroughFilter().host_passes(state, request)
