"""What one scheduling request learns as it goes (the Kubernetes scheduler's CycleState):
the hosts chosen for its earlier instances.

The caller's request spec is never changed. A server group's policy must see where this
request's earlier members went, so the filters and weighers are given `spec`: the
caller's spec with those hosts added to its group's, rebuilt after each choice.
"""

from __future__ import annotations

import dataclasses

from novalite.objects.request_spec import RequestSpec


@dataclasses.dataclass
class CycleState:
    original: RequestSpec
    spec: RequestSpec
    chosen: list[str] = dataclasses.field(default_factory=list)

    @classmethod
    def start(cls, spec: RequestSpec) -> CycleState:
        return cls(original=spec, spec=spec)

    def chose(self, host: str) -> None:
        """Record a choice; a group's next member sees it among the group's hosts."""
        self.chosen.append(host)
        group = self.original.instance_group
        if group is not None:
            hosts = [*group.hosts, *self.chosen]
            self.spec = dataclasses.replace(
                self.original, instance_group=dataclasses.replace(group, hosts=hosts))
