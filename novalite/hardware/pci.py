"""PCI passthrough: the devices a flavor asks for, and whether a host's device pools can
give them (Nova's nova/pci/request.py and nova/pci/stats.py, without placement).

A flavor asks with the extra spec `pci_passthrough:alias` = `<alias>:<count>[, ...]`; each
alias is a `[pci] alias` JSON entry naming the devices (vendor_id, product_id,
device_type) and the NUMA affinity they need (numa_policy: legacy, preferred, required,
socket; `hw:pci_numa_affinity_policy` in the flavor or image overrides it). A compute
node reports its devices as pools of alike devices, each with a count:

    [{"vendor_id": "8086", "product_id": "1520", "dev_type": "type-PCI",
      "numa_node": 0, "count": 4, "physical_network": "physnet1"}]
"""

from __future__ import annotations

import dataclasses
import functools
import json
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from novalite import exception, strutils
from novalite.conf import CONF
from novalite.hardware import numa

STANDARD, PF, VF, VDPA = "type-PCI", "type-PF", "type-VF", "vdpa"
POLICIES = ("required", "legacy", "preferred", "socket")
_ALIAS_KEYS = {"name", "capability_type", "product_id", "vendor_id", "device_type",
               "numa_policy", "resource_class", "traits", "live_migratable"}
_IGNORED = {"resource_class", "traits", "rp_uuids"}  # placement's business
_HEX4 = re.compile(r"[0-9a-fA-F]{4}")


class PciInvalidAlias(exception.Invalid):
    msg_fmt = "Invalid PCI alias definition: %(reason)s"


class PciRequestAliasNotDefined(exception.Invalid):
    msg_fmt = "PCI alias %(alias)s is not defined"


@dataclasses.dataclass(frozen=True)
class PciPool:
    """`count` alike devices; `tags` holds every other key of the reported pool."""

    count: int
    tags: tuple[tuple[str, Any], ...]

    def get(self, key: str, default: Any = None) -> Any:
        return next((v for k, v in self.tags if k == key), default)

    def to_dict(self) -> dict[str, Any]:
        return {**dict(self.tags), "count": self.count}


@dataclasses.dataclass(frozen=True)
class PciRequest:
    count: int
    specs: tuple[tuple[tuple[str, str], ...], ...]  # alternatives, each a dict's items
    alias_name: str | None = None
    numa_policy: str = "legacy"


def pools_from_dicts(pools: Iterable[dict[str, Any]]) -> tuple[PciPool, ...]:
    """Reported pools as values, fewest tags first (Nova's pool order), shared with the
    hosts reporting equal ones."""
    found = []
    for pool in pools:
        tags = {"dev_type": STANDARD, "numa_node": None, **pool, **pool.get("tags", {})}
        tags.pop("tags", None)
        count = int(tags.pop("count", 0))
        tags.pop("devices", None)
        if count > 0:
            found.append(PciPool(count, tuple(sorted(tags.items()))))
    return numa.intern(tuple(sorted(found, key=lambda p: len(p.tags))))


def free_devices(pools: Iterable[PciPool]) -> int:
    return sum(pool.count for pool in pools)


# --- requests ---------------------------------------------------------------------------

def aliases() -> dict[str, tuple[str, list[dict[str, str]]]]:
    """`[pci] alias` by name: (numa_policy, [device specs])."""
    return _aliases(tuple(CONF.pci.alias))


@functools.lru_cache(maxsize=8)
def _aliases(entries: tuple[str, ...]) -> dict[str, tuple[str, list[dict[str, str]]]]:
    found: dict[str, tuple[str, list[dict[str, str]]]] = {}
    for entry in entries:
        name, policy, spec = _parse_alias(entry)
        if name not in found:
            found[name] = (policy, [spec])
            continue
        if found[name][0] != policy:
            raise PciInvalidAlias(reason=f"NUMA policy mismatch for alias '{name}'")
        if found[name][1][0].get("dev_type") != spec.get("dev_type"):
            raise PciInvalidAlias(reason=f"Device type mismatch for alias '{name}'")
        found[name][1].append(spec)
    missing = sorted(n for n, (_, specs) in found.items()
                     if any(not ("vendor_id" in s and "product_id" in s) for s in specs))
    if missing:
        raise PciInvalidAlias(reason=f"The PCI alias(es) {','.join(missing)} does not have "
                              "vendor_id and product_id fields set.")
    return found


def _parse_alias(entry: str) -> tuple[str, str, dict[str, str]]:
    try:
        spec = json.loads(entry)
    except ValueError as exc:
        raise PciInvalidAlias(reason=str(exc)) from None
    if not isinstance(spec, dict) or not str(spec.get("name", "")).strip():
        raise PciInvalidAlias(reason=f"an alias needs a name: {entry}")
    unknown = set(spec) - _ALIAS_KEYS
    if unknown:
        raise PciInvalidAlias(reason=f"unknown alias keys {sorted(unknown)}")
    for key in ("vendor_id", "product_id"):
        if key in spec and not _HEX4.fullmatch(str(spec[key])):
            raise PciInvalidAlias(reason=f"{key} {spec[key]!r} is not 4 hex digits")
    if spec.get("device_type", STANDARD) not in (STANDARD, PF, VF):
        raise PciInvalidAlias(reason=f"device_type {spec['device_type']!r} is not valid")
    if spec.get("numa_policy", "legacy") not in POLICIES:
        raise PciInvalidAlias(reason=f"numa_policy {spec['numa_policy']!r} is not valid")
    name = spec.pop("name").strip()
    policy = spec.pop("numa_policy", None) or "legacy"
    if "device_type" in spec:
        spec["dev_type"] = spec.pop("device_type")
    if "live_migratable" in spec:
        spec["live_migratable"] = "true" if strutils.parse_bool(spec["live_migratable"]) \
            else "false"
    return name, policy, spec


def requests_from_flavor(flavor: Any, image: Any = None) -> tuple[PciRequest, ...]:
    """The PCI requests of `pci_passthrough:alias` (empty without one); raises
    PciRequestAliasNotDefined / PciInvalidAlias / exception.Invalid."""
    specs = flavor.extra_specs
    if "pci_passthrough:alias" not in specs:
        return ()
    props = image.properties if image else {}
    return _requests(specs["pci_passthrough:alias"], specs.get("hw:pci_numa_affinity_policy"),
                     props.get("hw_pci_numa_affinity_policy"), tuple(CONF.pci.alias))


@functools.lru_cache(maxsize=256)
def _requests(value: str, flavor_policy: str | None, image_policy: str | None,
              entries: tuple[str, ...]) -> tuple[PciRequest, ...]:
    if flavor_policy and image_policy and flavor_policy != image_policy:
        raise exception.Invalid("The image's PCI NUMA affinity policy conflicts with the "
                                "flavor's.")
    override = flavor_policy or image_policy
    if override and override not in POLICIES:
        raise exception.Invalid(f"Invalid PCI NUMA affinity policy {override!r}.")
    known = _aliases(entries)
    requests = []
    for item in value.split(","):
        name, _, count = item.partition(":")
        name = name.strip()
        if name not in known:
            raise PciRequestAliasNotDefined(alias=name)
        try:
            number = int(count)
        except ValueError:
            raise exception.Invalid(f"Invalid PCI alias count in {item!r}.") from None
        policy, alternatives = known[name]
        requests.append(PciRequest(number, tuple(tuple(sorted(s.items()))
                                                 for s in alternatives),
                                   name, override or policy))
    return tuple(requests)


# --- matching requests to pools ---------------------------------------------------------

def _matches(pool: PciPool, specs: Iterable[dict[str, Any]]) -> bool:
    def lowered(value: Any) -> Any:
        return value.lower() if isinstance(value, str) else value

    tags = dict(pool.tags)
    return any(all(lowered(tags.get(k)) == lowered(v) for k, v in spec.items())
               for spec in specs)


def _on_cells(pools: list[PciPool], cells: Iterable[Any]) -> list[PciPool]:
    return [p for p in pools if p.get("numa_node") in set(cells)]


def _for_numa(pools: list[PciPool], request: PciRequest, numa_cells: Sequence[Any] | None,
              host: Any) -> list[PciPool]:
    """Pools with the NUMA affinity the policy asks for, trying stricter affinity first."""
    if not numa_cells:
        return pools
    cell_ids: list[Any] = [c.id for c in numa_cells]
    strict = _on_cells(pools, cell_ids)
    if request.numa_policy == "required" or free_devices(strict) >= request.count:
        return strict
    if request.numa_policy == "socket":
        host_cells = host.cells if host else ()
        if not host_cells or any(c.socket is None for c in host_cells):
            return []
        sockets = {c.socket for c in host_cells if c.id in cell_ids}
        return _on_cells(pools, [c.id for c in host_cells if c.socket in sockets])
    cell_ids.append(None)  # devices that report no NUMA node do for `legacy`
    legacy = _on_cells(pools, cell_ids)
    if request.numa_policy == "legacy" or free_devices(legacy) >= request.count:
        return legacy
    return sorted(pools, key=lambda p: p.get("numa_node") not in cell_ids)  # preferred


def _unrequested_kinds(pools: list[PciPool], specs: list[dict[str, Any]]) -> list[PciPool]:
    """PFs and vDPA devices only when asked for; remote-managed ones only when asked for;
    live-migratable ones as asked."""
    for kind in (PF, VDPA):
        if all(s.get("dev_type") != kind for s in specs):
            pools = [p for p in pools if p.get("dev_type") != kind]
    if all(not strutils.parse_bool(s.get("remote_managed")) for s in specs):
        pools = [p for p in pools if not strutils.parse_bool(p.get("remote_managed"))]
    for wanted in ("true", "false"):
        if all(s.get("live_migratable") == wanted for s in specs):
            pools = [p for p in pools if p.get("live_migratable") == wanted]
    return pools


def _filter_pools(pools: list[PciPool], request: PciRequest,
                  numa_cells: Sequence[Any] | None, host: Any) -> list[PciPool] | None:
    specs = [{k: v for k, v in s if k not in _IGNORED} for s in request.specs]
    pools = [p for p in pools if _matches(p, specs)]
    steps: tuple[Callable[[list[PciPool]], list[PciPool]], ...] = (
        lambda ps: _for_numa(ps, request, numa_cells, host),
        lambda ps: _unrequested_kinds(ps, specs))
    for step in steps:
        if free_devices(pools) < request.count:
            return None
        pools = step(pools)
    return pools if free_devices(pools) >= request.count else None


def apply_requests(pools: Sequence[PciPool], requests: Iterable[PciRequest],
                   numa_cells: Sequence[Any] | None = None, host: Any = None
                   ) -> tuple[PciPool, ...] | None:
    """The pools left once `requests` take their devices, or None if they cannot all be
    met. `numa_cells` (fitted guest NUMA cells) and `host` (its NUMA topology) bring in
    each request's NUMA policy."""
    left = list(pools)
    for request in requests:
        usable = _filter_pools(left, request, numa_cells, host)
        if not usable:
            return None
        count = request.count
        for pool in usable:
            index = next(i for i, p in enumerate(left) if p is pool)
            if pool.count > count:
                left[index] = dataclasses.replace(pool, count=pool.count - count)
                count = 0
            else:
                count -= pool.count
                del left[index]
            if not count:
                break
    return tuple(left)


def support_requests(pools: Sequence[PciPool], requests: Iterable[PciRequest],
                     numa_cells: Sequence[Any] | None = None, host: Any = None) -> bool:
    return apply_requests(pools, requests, numa_cells, host) is not None
