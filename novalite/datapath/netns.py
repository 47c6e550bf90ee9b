"""Doing one thing inside a namespace from this process: a short-lived thread enters it
(setns changes the calling thread only) and runs the call there. What it opens, a tap or
a socket, stays bound to that namespace after the thread is gone, so the process can
use it from any thread while itself staying in the machine's namespace."""

from __future__ import annotations

import ctypes
import os
import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")
CLONE_NEWNET = 0x40000000


def _setns(fd: int) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.setns(fd, CLONE_NEWNET) != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"setns: {os.strerror(error)}")


def call_in(namespace: str, call: Callable[[], T]) -> T:
    result: list[T] = []
    failure: list[BaseException] = []

    def inside() -> None:
        try:
            with open(f"/run/netns/{namespace}") as handle:
                _setns(handle.fileno())
            result.append(call())
        except BaseException as exc:  # handed to the caller's thread
            failure.append(exc)

    thread = threading.Thread(target=inside, name=f"in-{namespace}")
    thread.start()
    thread.join()
    if failure:
        raise failure[0]
    return result[0]
