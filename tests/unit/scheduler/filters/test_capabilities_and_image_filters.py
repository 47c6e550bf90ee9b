import pytest

from novalite.objects.image import ImageMeta
from novalite.scheduler.filters.compute_capabilities_filter import ComputeCapabilitiesFilter
from novalite.scheduler.filters.image_props_filter import (
    ImagePropertiesFilter,
    version_satisfies,
)
from tests import builders

CPU_INFO = '{"arch": "x86_64", "model": "fake", "features": ["avx2", "sse4"], ' \
           '"maxphysaddr": {"bits": 46}}'


def caps(**extra_specs):
    spec = builders.request_spec(flavor=builders.flavor(extra_specs=extra_specs))
    state = builders.host_state(cpu_info=CPU_INFO, stats={"gpu": "yes"})
    return ComputeCapabilitiesFilter().host_passes(state, spec)


@pytest.mark.parametrize(("extra_specs", "passes"), [
    ({}, True),
    ({"capabilities:cpu_info:arch": "x86_64"}, True),
    ({"capabilities:cpu_info:arch": "aarch64"}, False),
    ({"capabilities:cpu_info:features": "<in> avx2"}, True),
    ({"capabilities:cpu_info:nothing": "x"}, False),
    ({"hypervisor_type": "fake"}, True),                   # unscoped host attribute
    ({"hypervisor_type": "kvm"}, False),
    ({"vcpus_total": ">= 8"}, True),
    ({"gpu": "yes"}, True),                                # unscoped stat
    ({"hw:cpu_policy": "dedicated"}, True),                # another scope: not ours
    ({"trait:HW_CPU_X86_AVX2": "required"}, True),
    ({"hw:maxphysaddr_bits": "40"}, True),
    ({"hw:maxphysaddr_bits": "48"}, False),
])
def test_compute_capabilities(extra_specs, passes):
    assert caps(**extra_specs) is passes


def image_filter(props, supported=(("x86_64", "fake", "hvm"),), hv_version=1_000_000,
                 default_arch=None, conf=None):
    if default_arch:
        conf.set_override("image_properties_default_architecture", default_arch,
                          group="filter_scheduler")
    spec = builders.request_spec(image=ImageMeta(id="i", properties=props))
    state = builders.host_state(supported_instances=[tuple(s) for s in supported],
                                hypervisor_version=hv_version, cpu_info=CPU_INFO)
    return ImagePropertiesFilter().host_passes(state, spec)


@pytest.mark.parametrize(("props", "passes"), [
    ({}, True),
    ({"hw_architecture": "x86_64"}, True),
    ({"hw_architecture": "amd64"}, True),                  # canonicalised
    ({"hw_architecture": "aarch64"}, False),
    ({"img_hv_type": "fake", "hw_vm_mode": "hvm"}, True),
    ({"img_hv_type": "kvm"}, False),
    ({"hw_vm_mode": "xen"}, False),
    ({"hw_architecture": "x86_64", "img_hv_requested_version": ">=1.0"}, True),
    ({"hw_architecture": "x86_64", "img_hv_requested_version": ">=2.0"}, False),
    ({"hw_maxphysaddr_bits": "46"}, True),
    ({"hw_maxphysaddr_bits": "47"}, False),
])
def test_image_properties(conf, props, passes):
    assert image_filter(props) is passes


def test_no_supported_instances_rejects_images_that_ask(conf):
    assert image_filter({"hw_architecture": "x86_64"}, supported=()) is False
    assert image_filter({}, supported=()) is True


def test_default_architecture_applies_to_images_without_one(conf):
    assert image_filter({}, supported=(("aarch64", "fake", "hvm"),), default_arch="x86_64",
                        conf=conf) is False


@pytest.mark.parametrize(("version", "predicate", "ok"), [
    (6_002_000, ">=6.0,<7.0", True), (7_000_000, ">=6.0,<7.0", False),
    (6_002_000, "==6.2", True), (6_002_001, "6.2.1", True), (5_999_999, ">=6", False),
])
def test_version_predicates(version, predicate, ok):
    assert version_satisfies(version, predicate) is ok
