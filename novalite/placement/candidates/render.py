"""The GET /allocation_candidates body per microversion, written straight to JSON text:
allocation requests as a list (1.10) or keyed by provider (1.12), `mappings` (1.34);
provider summaries with the requested classes only (before 1.27) or all, traits (1.17),
parent and root (1.29). Tens of thousands of candidates render in milliseconds this way,
where building dicts for json.dumps costs more than finding them."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable

from novalite.placement.candidates.search import Candidate

Version = tuple[int, int]
_q = json.dumps


@dataclasses.dataclass(slots=True)
class Summary:
    uuid: str
    parent_uuid: str | None
    root_uuid: str
    resources: list[tuple[str, int, int]]  # (class, capacity, used)
    traits: list[str]


def body(requests: str, summaries: str) -> bytes:
    return (f'{{"allocation_requests":[{requests}],'
            f'"provider_summaries":{{{summaries}}}}}').encode()


def requests(candidates: Iterable[Candidate], uuid: dict[int, str],
             version: Version) -> str:
    if version < (1, 12):
        return ",".join(_q({"allocations": [
            {"resource_provider": {"uuid": uuid[i]}, "resources": r}
            for i, r in c.allocations.items()]}, separators=(",", ":"))
            for c in candidates)
    with_mappings = version >= (1, 34)
    out = []
    for c in candidates:
        item: dict = {"allocations": {uuid[i]: {"resources": r}
                                      for i, r in c.allocations.items()}}
        if with_mappings:
            item["mappings"] = {s: [uuid[i] for i in ids] for s, ids in c.mappings.items()}
        out.append(_q(item, separators=(",", ":")))
    return ",".join(out)


def single_provider_requests(uuids: Iterable[str], resources: dict[str, int], suffix: str,
                             version: Version) -> str:
    """Requests that each take all the resources from one provider."""
    res = _q(resources, separators=(",", ":"))
    if version < (1, 12):
        return ",".join(f'{{"allocations":[{{"resource_provider":{{"uuid":"{u}"}},'
                        f'"resources":{res}}}]}}' for u in uuids)
    if version >= (1, 34):
        sfx = _q(suffix)
        return ",".join(f'{{"allocations":{{"{u}":{{"resources":{res}}}}},'
                        f'"mappings":{{{sfx}:["{u}"]}}}}' for u in uuids)
    return ",".join(f'{{"allocations":{{"{u}":{{"resources":{res}}}}}}}' for u in uuids)


def _names(names: list[str]) -> str:
    """A JSON list of trait names (upper case, digits and _ only: nothing to escape)."""
    return '["' + '","'.join(names) + '"]' if names else "[]"


def view(requested: set[str], version: Version) -> tuple[bool, bool, frozenset[str] | None]:
    """What a summary shows at this version (traits, tree, the classes shown: None for
    all): a provider's summary is the same text for every request with the same view."""
    return (version >= (1, 17), version >= (1, 29),
            None if version >= (1, 27) else frozenset(requested))


def summary(s: Summary, shown: tuple[bool, bool, frozenset[str] | None]) -> str:
    """One provider's summary, as `"uuid":{...}`, in the `view` given."""
    with_traits, nested, classes = shown
    res = ",".join(f'"{rc}":{{"capacity":{cap},"used":{used}}}'
                   for rc, cap, used in s.resources if classes is None or rc in classes)
    text = f'"{s.uuid}":{{"resources":{{{res}}}'
    if with_traits:
        text += f',"traits":{_names(s.traits)}'
    if nested:
        parent = "null" if s.parent_uuid is None else f'"{s.parent_uuid}"'
        text += f',"parent_provider_uuid":{parent},"root_provider_uuid":"{s.root_uuid}"'
    return text + "}"


def summaries(items: Iterable[Summary], requested: set[str], version: Version) -> str:
    shown = view(requested, version)
    return ",".join(summary(s, shown) for s in items)
