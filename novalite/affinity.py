"""One CPU for a service process's Python threads, every CPU for the programs it starts.

A Python process runs one thread at a time (the GIL). Its threads spread over several
CPUs pass that lock from CPU to CPU at each blocking call (each SQLite statement, each
socket read): the thread waiting on the other CPU is woken and takes the lock, and the
first sleeps when its call returns until the lock comes back. On this project's 2-CPU
machine, the all-in-one under a volume benchmark switched context 20,600 times a second
and spent a third of its CPU in the kernel; kept on one CPU, 2,957 times, and a boot
storm took a third less CPU per boot. The process could not use a second CPU for Python
anyway; what runs outside the lock (SQLite's own work, the kernel's) is small beside it.

Threads inherit their creator's CPUs, and so do programs: a guest's QEMU, an NBD export,
dnsmasq or qemu-img started from a pinned thread would share the service's one CPU.
They are started inside `unpinned`, which gives the starting thread back the CPUs the
service had before it pinned itself while it starts them (a program takes the CPUs of
the thread that starts it, at that moment).
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Iterator

from novalite import exception
from novalite.conf import CONF

LOG = logging.getLogger(__name__)

# The CPUs this process was allowed before `pin` (for the programs it starts) and the
# one it pinned its threads to; None while it is not pinned.
_before: frozenset[int] | None = None
_pinned: frozenset[int] = frozenset()


class CPUNotAllowed(exception.NovaliteException):
    msg_fmt = ("[DEFAULT] interpreter_cpu = %(cpu)s is not a CPU this process may run on "
               "(%(allowed)s); give one of those, 'auto' or 'none'")


def _cpu_list(cpus: frozenset[int]) -> str:
    return ",".join(str(cpu) for cpu in sorted(cpus))


def _current_cpu() -> int:
    """The CPU running this thread: field 39 of /proc/self/stat (os has no sched_getcpu
    before Python 3.13), counted after the command name, which may hold spaces."""
    with open("/proc/self/stat") as stat:
        fields = stat.read().rpartition(")")[2].split()
    return int(fields[36])


def pin() -> None:
    """Every thread of this process onto [DEFAULT] interpreter_cpu, threads started
    later too (they inherit it). Called by each service's command as it starts."""
    global _before, _pinned
    choice = CONF.interpreter_cpu
    if choice == "none":
        return
    allowed = frozenset(os.sched_getaffinity(0))
    cpu = _current_cpu() if choice == "auto" else int(choice)
    if cpu not in allowed:
        raise CPUNotAllowed(cpu=cpu, allowed=_cpu_list(allowed))
    if len(allowed) == 1:
        return
    for task in os.listdir("/proc/self/task"):
        try:
            os.sched_setaffinity(int(task), {cpu})
        except ProcessLookupError:
            continue  # a thread that ended since the listing
    _before, _pinned = allowed, frozenset({cpu})
    LOG.info("Python threads on CPU %d of %s ([DEFAULT] interpreter_cpu = %s)",
             cpu, _cpu_list(allowed), choice)


@contextlib.contextmanager
def unpinned() -> Iterator[None]:
    """The calling thread on every CPU the service had before `pin` while the block
    starts a program, which keeps them; the thread is pinned again after it."""
    if _before is None:
        yield
        return
    os.sched_setaffinity(0, _before)
    try:
        yield
    finally:
        os.sched_setaffinity(0, _pinned)
