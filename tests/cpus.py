"""The CPUs the kernel lets a process's threads run on, as /proc lists them ("0-1")."""

from __future__ import annotations

import contextlib
from pathlib import Path


def allowed(status: str) -> str:
    """Cpus_allowed_list from the text of a /proc/.../status file."""
    return next(line.split(":")[1].strip() for line in status.splitlines()
                if line.startswith("Cpus_allowed_list:"))


def of_process(pid: int | str) -> set[str]:
    """Each thread's list, once each."""
    found = set()
    for status in Path(f"/proc/{pid}/task").glob("*/status"):
        with contextlib.suppress(FileNotFoundError):  # a thread that ended meanwhile
            found.add(allowed(status.read_text()))
    return found
