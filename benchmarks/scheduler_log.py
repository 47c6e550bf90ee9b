"""The scheduler's own account of each request, read from a service's log: its INFO line
"Scheduled N instance(s) among H hosts: refresh x ms, placement y ms, ..." gives where a
boot's scheduling time went, as the scheduler measured it, without timing it from
outside."""

from __future__ import annotations

import re

LINE = re.compile(r"Scheduled \d+ instance\(s\) among (\d+) hosts: (.*)$")


def phases(log_path: str) -> list[dict[str, float]]:
    """Each request's phases in ms, in the order the log has them."""
    found = []
    with open(log_path) as log:
        for line in log:
            match = LINE.search(line)
            if match:
                found.append({name: float(ms) for name, ms in re.findall(
                    r"(\w+) ([\d.]+) ms", match.group(2))})
    return found
