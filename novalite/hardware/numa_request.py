"""What NUMA topology a request asks for (Nova's numa_get_constraints in
nova/virt/hardware.py), compactly.

A request has a NUMA topology when it asks for NUMA nodes (`hw:numa_nodes`), pinned CPUs
(`hw:cpu_policy` dedicated or mixed with `hw:cpu_dedicated_mask`, `resources:PCPU`) or a
memory page size (`hw:mem_page_size`); each flavor key `hw:x` has an image property
`hw_x` (`hw:numa_cpus.N` / `hw:numa_mem.N` place vCPUs and MiB on guest node N). Thread
policies come from `hw:cpu_thread_policy` or `trait:HW_CPU_HYPERTHREADING`. Conflicting
or malformed requests raise InvalidNUMARequest (Nova refuses them at the API; here no
host fits them).
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable
from typing import Any, TypeVar

from novalite import exception
from novalite.hardware.numa import (
    MEMPAGES_ANY,
    MEMPAGES_LARGE,
    MEMPAGES_SMALL,
    InstanceCell,
    InstanceTopology,
)

CPU_POLICIES = ("dedicated", "shared", "mixed")
THREAD_POLICIES = ("prefer", "isolate", "require")
PINNED = ("dedicated", "mixed")

T = TypeVar("T")
NUMA_NODES_MAX = 128
_RELEVANT = ("hw:", "hw_", "resources", "trait")


class InvalidNUMARequest(exception.Invalid):
    msg_fmt = "Invalid NUMA request: %(reason)s"


def _invalid(reason: str) -> InvalidNUMARequest:
    return InvalidNUMARequest(reason=reason)


def parse_cpu_spec(spec: str) -> set[int]:
    """'0-3,^2,6' -> {0, 1, 3, 6}."""
    wanted: set[int] = set()
    rejected: set[int] = set()
    for rule in (r.strip() for r in spec.split(",")):
        if not rule:
            continue
        target = rejected if rule.startswith("^") else wanted
        rule = rule.lstrip("^")
        try:
            start, _, end = rule.partition("-")
            first, last = int(start), int(end or start)
        except ValueError:
            raise _invalid(f"invalid CPU range expression {rule!r}") from None
        if first > last:
            raise _invalid(f"invalid CPU range expression {rule!r}")
        target.update(range(first, last + 1))
    return wanted - rejected


def _pagesize(request: str) -> int:
    named = {"any": MEMPAGES_ANY, "large": MEMPAGES_LARGE, "small": MEMPAGES_SMALL}
    if request in named:
        return named[request]
    match = re.fullmatch(r"(\d+)\s*([KMGT]?)i?B?", request.strip(), re.IGNORECASE)
    if not match:
        raise _invalid(f"invalid memory page size {request!r}")
    number, unit = int(match.group(1)), match.group(2).upper()
    if not unit:
        return number  # KiB
    factor: int = 1024 ** "KMGT".index(unit)  # in KiB: K 1, M 1024, G 1024**2, ...
    return number * factor


def _pair(key: str, specs: dict[str, str],
          props: dict[str, str]) -> tuple[str | None, str | None]:
    return specs.get(f"hw:{key}"), props.get(f"hw_{key}")


def _cpu_policy(specs: dict[str, str], props: dict[str, str]) -> str | None:
    flavor, image = _pair("cpu_policy", specs, props)
    for value in (flavor, image):
        if value and value not in CPU_POLICIES:
            raise _invalid(f"CPU policy {value!r} is not one of {CPU_POLICIES}")
    if flavor == "mixed" and image == "dedicated" or \
            flavor == "shared" and image in PINNED:
        raise _invalid("the image's CPU policy conflicts with the flavor's")
    return flavor or image


def _thread_policy(specs: dict[str, str], props: dict[str, str]) -> str | None:
    flavor, image = _pair("cpu_thread_policy", specs, props)
    for value in (flavor, image):
        if value and value not in THREAD_POLICIES:
            raise _invalid(f"CPU thread policy {value!r} is not one of {THREAD_POLICIES}")
    if flavor in (None, "prefer"):
        return flavor or image
    if image and image != flavor:
        raise _invalid("the image's CPU thread policy conflicts with the flavor's")
    return flavor


def _resource_counts(specs: dict[str, str]) -> tuple[int, int]:
    vcpu = pcpu = 0
    for key, value in specs.items():
        kind = re.fullmatch(r"resources(?:[1-9][0-9]*)?:(VCPU|PCPU)", key)
        if kind and str(value).isdigit():
            if kind.group(1) == "VCPU":
                vcpu += int(value)
            else:
                pcpu += int(value)
    return vcpu, pcpu


def _hyperthreading_trait(specs: dict[str, str], props: dict[str, str]) -> str | None:
    for key, value in specs.items():
        if re.fullmatch(r"trait(?:[1-9][0-9]*)?:HW_CPU_HYPERTHREADING", key):
            return value
    return "required" if props.get("trait:HW_CPU_HYPERTHREADING") == "required" else None


def _policies(flavor: Any, specs: dict[str, str],
              props: dict[str, str]) -> tuple[str | None, str | None]:
    """The CPU and thread policies, with the resources:/trait: spellings folded in."""
    policy, threads = _cpu_policy(specs, props), _thread_policy(specs, props)
    vcpu, pcpu = _resource_counts(specs)
    if policy and (vcpu or pcpu):
        raise _invalid("resources:VCPU/PCPU cannot be combined with a CPU policy")
    if vcpu and pcpu:
        raise _invalid("resources:VCPU and resources:PCPU cannot both be given")
    if pcpu:
        if pcpu != flavor.vcpus:
            raise _invalid("resources:PCPU must equal the flavor's vCPUs")
        policy = "dedicated"
    if vcpu:
        policy = "shared"
    trait = _hyperthreading_trait(specs, props)
    if threads and trait:
        raise _invalid("trait:HW_CPU_HYPERTHREADING cannot be combined with a thread "
                       "policy")
    threads = {"forbidden": "isolate", "required": "require"}.get(trait or "", threads)
    if policy in ("shared", None) and threads:
        raise _invalid("a CPU thread policy needs the dedicated or mixed CPU policy")
    return policy, threads


def _dedicated_cpus(flavor: Any, specs: dict[str, str], policy: str | None) -> set[int]:
    mask = specs.get("hw:cpu_dedicated_mask")
    if policy == "dedicated":
        if mask:
            raise _invalid("hw:cpu_dedicated_mask needs the mixed CPU policy")
        return set(range(flavor.vcpus))
    if policy != "mixed":
        if mask:
            raise _invalid("hw:cpu_dedicated_mask needs the mixed CPU policy")
        return set()
    if not mask:
        raise _invalid("the mixed CPU policy needs hw:cpu_dedicated_mask")
    spec = f"0-{flavor.vcpus - 1},{mask}" if mask.strip().startswith("^") else mask
    pcpus = parse_cpu_spec(spec)
    if not pcpus or not pcpus < set(range(flavor.vcpus)):
        raise _invalid("hw:cpu_dedicated_mask must name some but not all of the vCPUs")
    return pcpus


def _node_count(specs: dict[str, str], props: dict[str, str]) -> int | None:
    flavor, image = _pair("numa_nodes", specs, props)
    if flavor and image:
        raise _invalid("hw_numa_nodes cannot override the flavor's hw:numa_nodes")
    nodes = flavor or image
    if nodes is None:
        return None
    if not str(nodes).isdigit() or int(nodes) < 1:
        raise _invalid(f"invalid number of NUMA nodes {nodes!r}")
    return int(nodes)


def _page_size(specs: dict[str, str], props: dict[str, str]) -> int | None:
    flavor, image = _pair("mem_page_size", specs, props)
    if image and not flavor:
        raise _invalid("the image may not ask for a page size the flavor does not allow")
    if not flavor:
        return None
    size = _pagesize(str(flavor))
    if image:
        if size not in (MEMPAGES_ANY, MEMPAGES_LARGE):
            raise _invalid("the image's page size conflicts with the flavor's")
        return _pagesize(str(image))
    return size


def _per_node(key: str, specs: dict[str, str], props: dict[str, str],
              parse: Callable[[str], T]) -> list[T] | None:
    """hw:numa_cpus.N / hw:numa_mem.N (or the image's hw_numa_*.N), in node order."""
    found: dict[str, list[T] | None] = {}
    for source, prefix in ((specs, f"hw:{key}"), (props, f"hw_{key}")):
        values: list[T] = []
        for node in range(NUMA_NODES_MAX):
            if f"{prefix}.{node}" not in source:
                break
            values.append(parse(str(source[f"{prefix}.{node}"])))
        found[prefix] = values or None
    flavor, image = found.values()
    if flavor is not None and image is not None:
        raise _invalid(f"hw_{key} cannot override the flavor's hw:{key}")
    return flavor if flavor is not None else image


def _cells(flavor: Any, nodes: int, specs: dict[str, str],
           props: dict[str, str]) -> list[tuple[set[int], int]]:
    """(guest CPUs, memory MiB) per guest node, as asked or split evenly."""
    cpu_list = _per_node("numa_cpus", specs, props, parse_cpu_spec)
    mem_list = _per_node("numa_mem", specs, props, int)
    if cpu_list is None and mem_list is None:
        if flavor.vcpus % nodes or flavor.memory_mb % nodes:
            raise _invalid("vCPUs and RAM must divide evenly over the NUMA nodes")
        per_cpu, per_mem = flavor.vcpus // nodes, flavor.memory_mb // nodes
        return [(set(range(n * per_cpu, (n + 1) * per_cpu)), per_mem) for n in range(nodes)]
    if cpu_list is None or mem_list is None or len(cpu_list) != nodes or \
            len(mem_list) != nodes:
        raise _invalid("numa_cpus.N and numa_mem.N must be given for every node")
    cpus = [c for node in cpu_list for c in node]
    if len(cpus) != len(set(cpus)) or set(cpus) != set(range(flavor.vcpus)):
        raise _invalid("numa_cpus.N must assign every vCPU to exactly one node")
    if sum(mem_list) != flavor.memory_mb:
        raise _invalid("numa_mem.N must add up to the flavor's RAM")
    return list(zip(cpu_list, mem_list, strict=True))


# What a topology depends on, hashable for the cache: the flavor's relevant extra specs,
# its vCPUs and RAM, and the image's relevant properties as strings.
_Key = tuple[tuple[tuple[str, str], ...], int, int, tuple[tuple[str, str], ...]]


def _key(flavor: Any, image: Any) -> _Key:
    props = image.properties if image else {}
    return (tuple(sorted(i for i in flavor.extra_specs.items() if i[0].startswith(_RELEVANT))),
            flavor.vcpus, flavor.memory_mb,
            tuple(sorted((k, str(v)) for k, v in props.items() if k.startswith(_RELEVANT))))


def numa_constraints(flavor: Any, image: Any) -> InstanceTopology | None:
    """The guest NUMA topology the flavor and image ask for, or None (no NUMA needs)."""
    return _constraints(_key(flavor, image))


@functools.lru_cache(maxsize=1024)
def _constraints(key: _Key) -> InstanceTopology | None:
    specs_items, vcpus, memory_mb, props_items = key
    specs, props = dict(specs_items), dict(props_items)
    flavor = _Size(vcpus, memory_mb)
    policy, threads = _policies(flavor, specs, props)
    pcpus = _dedicated_cpus(flavor, specs, policy)
    nodes = _node_count(specs, props)
    pagesize = _page_size(specs, props)
    if not (nodes or pagesize or policy in PINNED):
        return None
    cells = tuple(
        InstanceCell(id=node, cpuset=frozenset(cpus - pcpus), pcpuset=frozenset(cpus & pcpus),
                     memory=memory, pagesize=pagesize, cpu_policy=policy,
                     cpu_thread_policy=threads)
        for node, (cpus, memory) in enumerate(_cells(flavor, nodes or 1, specs, props)))
    return InstanceTopology(cells)


@dataclasses.dataclass(frozen=True)
class _Size:
    vcpus: int
    memory_mb: int
