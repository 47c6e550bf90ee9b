"""What a GET /allocation_candidates asks for, parsed: request groups keyed by suffix and
the parameters that apply to the request as a whole."""

from __future__ import annotations

import dataclasses

SHARES_VIA_AGGREGATE = "MISC_SHARES_VIA_AGGREGATE"


@dataclasses.dataclass
class RequestGroup:
    """One `resources{S}` group. The unsuffixed group may spread over a tree and the
    providers sharing with it; a suffixed group must land on a single provider."""

    suffix: str = ""
    resources: dict[str, int] = dataclasses.field(default_factory=dict)
    # AND of ORs: [{A}, {B, C}] means A and (B or C)
    required: list[frozenset[str]] = dataclasses.field(default_factory=list)
    forbidden: set[str] = dataclasses.field(default_factory=set)
    # AND of ORs of aggregate uuids
    member_of: list[set[str]] = dataclasses.field(default_factory=list)
    forbidden_aggs: set[str] = dataclasses.field(default_factory=set)
    in_tree: str | None = None

    @property
    def use_same_provider(self) -> bool:
        return bool(self.suffix)

    def trait_names(self) -> set[str]:
        return set().union(*self.required) | self.forbidden


@dataclasses.dataclass
class RequestWideParams:
    limit: int | None = None
    group_policy: str | None = None
    root_required: set[str] = dataclasses.field(default_factory=set)
    root_forbidden: set[str] = dataclasses.field(default_factory=set)
    same_subtrees: list[set[str]] = dataclasses.field(default_factory=list)


@dataclasses.dataclass(frozen=True)
class Options:
    """The [placement] options a search follows, passed in so the core reads no CONF."""

    randomize: bool = False
    max_candidates: int = -1
    strategy: str = "depth-first"


class ResourceClassNotFound(Exception):
    def __init__(self, name: str) -> None:
        super().__init__(f"No such resource class {name}.")


class TraitNotFound(Exception):
    def __init__(self, name: str) -> None:
        super().__init__(f"No such trait(s): {name}.")
