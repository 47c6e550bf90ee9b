"""What a request spec asks of placement (Nova's ResourceRequest): request groups of
resources and traits from the flavor and image, plus the tree-wide constraints the
pre-filters add (member_of, in_tree, root traits), rendered as the querystring of
`GET /allocation_candidates`.

Flavor extra specs: `resources[$S]:<RC>=<n>`, `trait[$S]:<TRAIT>=required|forbidden`,
`group_policy=none|isolate`, where `$S` is an optional group suffix. VCPU, MEMORY_MB and
DISK_GB come from the flavor unless its extra specs set them; zero amounts are dropped.
Image properties `trait:<TRAIT>=required` add to the unsuffixed group.
"""

from __future__ import annotations

import dataclasses
import re
import urllib.parse

from novalite import exception
from novalite.objects.request_spec import RequestSpec

_RESOURCE = re.compile(r"^resources([a-zA-Z0-9_-]{0,64}):(?P<rc>[A-Z0-9_]+)$")
_TRAIT = re.compile(r"^trait([a-zA-Z0-9_-]{0,64}):(?P<trait>[A-Z0-9_]+)$")


@dataclasses.dataclass
class RequestGroup:
    resources: dict[str, int] = dataclasses.field(default_factory=dict)
    required: set[str] = dataclasses.field(default_factory=set)
    forbidden: set[str] = dataclasses.field(default_factory=set)

    def params(self, suffix: str) -> list[tuple[str, str]]:
        out = []
        if self.resources:
            out.append((f"resources{suffix}", ",".join(
                f"{rc}:{n}" for rc, n in sorted(self.resources.items()))))
        traits = sorted(self.required) + sorted(f"!{t}" for t in self.forbidden)
        if traits:
            out.append((f"required{suffix}", ",".join(traits)))
        return out


@dataclasses.dataclass
class ResourceRequest:
    groups: dict[str, RequestGroup] = dataclasses.field(
        default_factory=lambda: {"": RequestGroup()})
    member_of: list[list[str]] = dataclasses.field(default_factory=list)  # each OR'ed
    in_tree: str | None = None
    root_required: set[str] = dataclasses.field(default_factory=set)
    root_forbidden: set[str] = dataclasses.field(default_factory=set)
    group_policy: str | None = None
    limit: int | None = None

    @property
    def unsuffixed(self) -> RequestGroup:
        return self.groups[""]

    def group(self, suffix: str) -> RequestGroup:
        return self.groups.setdefault(suffix, RequestGroup())

    def to_querystring(self) -> str:
        params: list[tuple[str, str]] = []
        for suffix, group in sorted(self.groups.items()):
            params += group.params(suffix)
        params += [("member_of", "in:" + ",".join(sorted(uuids)))
                   for uuids in self.member_of]
        if self.in_tree:
            params.append(("in_tree", self.in_tree))
        roots = sorted(self.root_required) + sorted(f"!{t}" for t in self.root_forbidden)
        if roots:
            params.append(("root_required", ",".join(roots)))
        if self.group_policy:
            params.append(("group_policy", self.group_policy))
        if self.limit is not None:
            params.append(("limit", str(self.limit)))
        return urllib.parse.urlencode(sorted(params), safe=",:!")

    def describe(self) -> str:
        """For faults: what placement was asked, in an operator's words."""
        return urllib.parse.unquote(self.to_querystring()).replace("&", ", ")

    @classmethod
    def from_request_spec(cls, spec: RequestSpec) -> ResourceRequest:
        request = cls()
        specs = spec.flavor.extra_specs or {}
        for key, value in specs.items():
            request._add_extra_spec(key, value)
        request._add_flavor_defaults(spec)
        for key, value in (spec.image.properties if spec.image else {}).items():
            match = _TRAIT.match(key)
            if match and not match.group(1) and str(value).lower() == "required":
                request.unsuffixed.required.add(match.group("trait"))
        for group in request.groups.values():
            group.resources = {rc: n for rc, n in group.resources.items() if n}
        suffixed = [s for s, g in request.groups.items() if s and g.resources]
        if len(suffixed) > 1 and request.group_policy is None:
            request.group_policy = "none"
        return request

    def _add_extra_spec(self, key: str, value: str) -> None:
        if key == "group_policy":
            self.group_policy = value
        elif match := _RESOURCE.match(key):
            try:
                amount = int(value)
            except ValueError:
                raise exception.Invalid(f"Invalid extra spec {key}={value}: the amount "
                                        "must be a whole number") from None
            self.group(match.group(1)).resources[match.group("rc")] = amount
        elif match := _TRAIT.match(key):
            group = self.group(match.group(1))
            if value == "required":
                group.required.add(match.group("trait"))
            elif value == "forbidden":
                group.forbidden.add(match.group("trait"))

    def _add_flavor_defaults(self, spec: RequestSpec) -> None:
        flavor, given = spec.flavor, self.unsuffixed.resources
        if not any(rc in g.resources for g in self.groups.values() for rc in ("VCPU", "PCPU")):
            given["VCPU"] = flavor.vcpus
        if not any("MEMORY_MB" in g.resources for g in self.groups.values()):
            given["MEMORY_MB"] = flavor.memory_mb
        if not any("DISK_GB" in g.resources for g in self.groups.values()):
            given["DISK_GB"] = flavor.local_disk_gb(spec.is_bfv)
