"""The benchmarks' targets, read from targets.toml next to this file."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any


def load(benchmark: str) -> dict[str, Any]:
    """The table of `benchmark` (its script's name without .py)."""
    with open(Path(__file__).with_name("targets.toml"), "rb") as f:
        return tomllib.load(f)[benchmark]
