"""Pinning a service's Python threads, and the programs it starts on every CPU.

Each case runs in its own interpreter: `pin` moves every thread of the process it runs
in, which here would be the test worker's."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests import cpus

ROOT = Path(__file__).resolve().parents[2]
CPUS = sorted(os.sched_getaffinity(0))
needs_two = pytest.mark.skipif(len(CPUS) < 2, reason="pinning needs a choice of CPUs")

# Pins as the given [DEFAULT] interpreter_cpu says, with a thread started before and one
# after, then prints the CPUs of every thread, of a program started inside `unpinned`,
# of the thread that started it once that is over, and of a program started outside it.
_PROBE = textwrap.dedent("""
    import json, os, subprocess, sys, threading
    from novalite import affinity
    from novalite.conf import CONF
    from tests.cpus import allowed

    def program():
        return allowed(subprocess.run(["cat", "/proc/self/status"], capture_output=True,
                                      text=True, check=True).stdout)

    CONF([], project="novalite")
    CONF.set_override("interpreter_cpu", sys.argv[1])
    hold = threading.Event()  # both threads live until every thread's CPUs are read
    early = threading.Thread(target=hold.wait)
    early.start()
    try:
        try:
            affinity.pin()
        except affinity.CPUNotAllowed as exc:
            print(json.dumps({"refused": exc.format_message()}))
            raise SystemExit(0)
        late = threading.Thread(target=hold.wait)
        late.start()
        threads = [allowed(open(f"/proc/self/task/{t}/status").read())
                   for t in os.listdir("/proc/self/task")]
    finally:
        hold.set()
    with affinity.unpinned():
        inside = program()
    print(json.dumps({"threads": threads, "inside": inside, "after": allowed(
        open("/proc/thread-self/status").read()), "outside": program()}))
""")


def _probe(choice: str, cpus: list[int] = CPUS) -> dict:
    argv = [sys.executable, "-c", _PROBE, choice]
    if cpus != CPUS:
        argv = ["taskset", "--cpu-list", ",".join(map(str, cpus)), *argv]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=True,
                          cwd=ROOT)  # where `tests` is imported from
    return json.loads(done.stdout.splitlines()[-1])


def _own() -> str:
    """The CPUs this (unpinned) test process may use."""
    return cpus.allowed(Path("/proc/self/status").read_text())


@needs_two
def test_a_cpu_number_pins_every_thread_and_programs_get_every_cpu_back() -> None:
    seen = _probe(str(CPUS[-1]))
    assert set(seen["threads"]) == {str(CPUS[-1])}  # the thread started before too
    assert seen["inside"] == _own()
    assert seen["after"] == str(CPUS[-1])
    assert seen["outside"] == str(CPUS[-1])


@needs_two
def test_auto_pins_to_one_of_the_cpus_allowed() -> None:
    seen = _probe("auto")
    assert len(set(seen["threads"])) == 1
    assert int(seen["threads"][0]) in CPUS
    assert seen["inside"] == _own()


@needs_two
def test_none_leaves_the_threads_to_the_kernel() -> None:
    seen = _probe("none")
    assert set(seen["threads"]) == {_own()}
    assert seen["outside"] == _own()


@needs_two
def test_a_process_allowed_one_cpu_is_left_as_it_is() -> None:
    seen = _probe("auto", cpus=[CPUS[0]])
    assert set(seen["threads"]) == {str(CPUS[0])}
    assert seen["inside"] == str(CPUS[0])


def test_a_cpu_the_process_may_not_use_is_refused_by_name() -> None:
    refused = _probe(str(max(CPUS) + 1))["refused"]
    assert f"interpreter_cpu = {max(CPUS) + 1}" in refused
    assert f"({','.join(map(str, CPUS))})" in refused
