"""Removing a cloud's whole datapath, for a cloud that is gone for good (its state
directory wiped, a test's cloud): every namespace it named and the processes in them
(DHCP servers). A running cloud never needs it: it removes what it no longer uses."""

from __future__ import annotations

import contextlib
import os
import signal

from novalite.datapath import linux, names


def owned_namespaces(prefix: str | None = None) -> list[str]:
    """The namespaces of the cloud with that prefix (default: this process's cloud)."""
    prefix = prefix or names.prefix()
    return sorted(ns for ns in linux.namespaces()
                  if ns.startswith(f"{prefix}-") or ns.endswith(f"-{prefix}"))


def remove_all(prefix: str | None = None) -> None:
    for namespace in owned_namespaces(prefix):
        for pid in linux.run(["ip", "netns", "pids", namespace]).split():
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(pid), signal.SIGKILL)
        linux.delete_namespace(namespace)
