"""The GET /allocation_candidates body per microversion: allocation requests as a list
(1.10) or keyed by provider (1.12), `mappings` (1.34); provider summaries with the
requested classes only (before 1.27) or all, traits (1.17), parent and root (1.29)."""

from __future__ import annotations

from novalite.placement.candidates.search import Result
from novalite.placement.candidates.snapshot import Provider

Version = tuple[int, int]


def body(result: Result, providers: dict[int, Provider], requested: set[str],
         version: Version) -> dict:
    uuid = {i: providers[i].uuid for i in result.summaries}
    for cand in result.candidates:
        for i in cand.allocations:
            uuid.setdefault(i, providers[i].uuid)
    return {"allocation_requests": _requests(result, uuid, version),
            "provider_summaries": _summaries(result, providers, requested, version)}


def _requests(result: Result, uuid: dict[int, str], version: Version) -> list:
    if version < (1, 12):
        return [{"allocations": [{"resource_provider": {"uuid": uuid[i]}, "resources": r}
                                 for i, r in c.allocations.items()]}
                for c in result.candidates]
    with_mappings = version >= (1, 34)
    out = []
    for cand in result.candidates:
        item: dict = {"allocations": {uuid[i]: {"resources": r}
                                      for i, r in cand.allocations.items()}}
        if with_mappings:
            item["mappings"] = {s: [uuid[i] for i in ids]
                                for s, ids in cand.mappings.items()}
        out.append(item)
    return out


def _summaries(result: Result, providers: dict[int, Provider], requested: set[str],
               version: Version) -> dict:
    all_classes = version >= (1, 27)
    traits = version >= (1, 17)
    nested = version >= (1, 29)
    out = {}
    for i in result.summaries:
        rp = providers[i]
        summary: dict = {"resources": {
            rc: {"capacity": inv.capacity, "used": inv.used}
            for rc, inv in rp.inventories.items() if all_classes or rc in requested}}
        if traits:
            summary["traits"] = sorted(rp.traits)
        if nested:
            summary["parent_provider_uuid"] = (
                None if rp.parent_id is None else providers[rp.parent_id].uuid)
            summary["root_provider_uuid"] = providers[rp.root_id].uuid
        out[rp.uuid] = summary
    return out
