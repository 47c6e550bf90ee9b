"""The decision record: how many hosts each filter removed, and which (a capped list), so
"No valid host was found" always comes with why; for the hosts named, the filter's own
words on why each failed ("compute3: RamFilter: 512 MB free, 2,048 MB wanted")."""

from __future__ import annotations

import dataclasses

from novalite.scheduler.phases import Phases

SAMPLE = 5  # hosts named per filter
TOP = 3  # weighed hosts shown


@dataclasses.dataclass
class FilterStep:
    name: str
    removed: int
    sample: list[str]
    why: list[str] = dataclasses.field(default_factory=list)  # "host: filter: reason"


@dataclasses.dataclass
class Decision:
    hosts: int
    asked: str = ""  # how the hosts were found (what placement was asked), said last
    steps: list[FilterStep] = dataclasses.field(default_factory=list)
    phases: Phases = dataclasses.field(default_factory=Phases)  # where the time went

    def record(self, name: str, removed: int, sample: list[str],
               reasons: list[str] | None = None) -> None:
        """Add that `name` removed `removed` hosts, `sample` naming the first of them and
        `reasons` saying why each failed ('' for no words); a filter that runs again
        (the next instance of a multi-create) adds to its step."""
        why = [f"{host}: {name}: {reason}"
               for host, reason in zip(sample, reasons or (), strict=False) if reason]
        step = next((s for s in self.steps if s.name == name), None)
        if step is None:
            self.steps.append(FilterStep(name, removed, sample[:SAMPLE], why[:SAMPLE]))
            return
        step.removed += removed
        step.sample = (step.sample + sample)[:SAMPLE]
        step.why = (step.why + why)[:SAMPLE]

    def summary(self) -> str:
        parts = []
        for step in self.steps:
            if step.removed:
                more = ", ..." if step.removed > len(step.sample) else ""
                parts.append(f"{step.name} removed {step.removed} "
                             f"({', '.join(step.sample)}{more})")
        funnel = "; ".join(parts) or "no filter removed any"
        why = "; ".join(line for step in self.steps for line in step.why)
        why = f" Why: {why}." if why else ""
        asked = f" {self.asked}." if self.asked else ""
        return f"{self.hosts} hosts: {funnel}.{why}{asked}"


def top_weights(weighed: list) -> str:
    """The best weighed hosts with each weigher's share, e.g.
    'compute2 1.80 (RAMWeigher 1.00, CPUWeigher 0.80)'."""
    parts = []
    for item in weighed[:TOP]:
        shares = ", ".join(f"{name} {score:.2f}" for name, score in item.by_weigher.items())
        parts.append(f"{item.host_state.host} {item.weight:.2f}" +
                     (f" ({shares})" if shares else ""))
    return "; ".join(parts)
