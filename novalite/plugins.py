"""Plugins (virt drivers, scheduler drivers, filters, weighers, RPC transports) are
entry points, found by namespace and name as Nova's stevedore namespaces are.

Asking importlib.metadata reads every installed distribution's metadata (tens of
milliseconds each time in a full environment, several times per service start), and
what is installed does not change while a process runs: each namespace is read once.
"""

from __future__ import annotations

import functools
from importlib.metadata import EntryPoint, entry_points


@functools.cache
def namespace(name: str) -> dict[str, EntryPoint]:
    """The namespace's plugins by name, in the order the installation lists them."""
    return {ep.name: ep for ep in entry_points(group=name)}


def known(name: str) -> list[str]:
    """The plugin names of a namespace, sorted: for the error naming what exists."""
    return sorted(namespace(name))
