"""The hop from the event loop to a handler's thread and back."""

from __future__ import annotations

import asyncio
import threading

import pytest

from novalite.api.worker_threads import WorkerThreads


def _threads(pool: WorkerThreads) -> set[str]:
    return {t.name for t in threading.enumerate() if t.name.startswith(pool._name + "_")}


def test_a_call_runs_on_a_worker_and_its_outcome_comes_back():
    pool = WorkerThreads(2, "hop-outcome")

    def idle() -> None:
        """Wait until the thread that answered waits for the next call (it says so
        after handing its outcome back)."""
        assert pool._idle.acquire(timeout=30)
        pool._idle.release()

    async def main() -> None:
        loop_thread = threading.current_thread().name
        ran_on = await pool.run(lambda: threading.current_thread().name)
        assert ran_on != loop_thread and ran_on.startswith("hop-outcome_")
        idle()
        with pytest.raises(KeyError, match="missing"):
            await pool.run(lambda: {}["missing"])
        idle()
        assert await pool.run(lambda: 42) == 42  # the thread survived the error

    asyncio.run(main())
    assert len(_threads(pool)) == 1  # an idle thread takes the next call


def test_threads_grow_to_the_size_and_calls_beyond_it_wait_their_turn():
    pool = WorkerThreads(2, "hop-grow")
    release = threading.Event()
    started = threading.Semaphore(0)

    def blocked() -> str:
        started.release()
        release.wait(30)
        return threading.current_thread().name

    async def main() -> list[str]:
        calls = [asyncio.ensure_future(pool.run(blocked)) for _ in range(4)]
        await asyncio.to_thread(lambda: [started.acquire(timeout=30) for _ in range(2)])
        assert len(_threads(pool)) == 2 and not any(c.done() for c in calls)
        release.set()
        return await asyncio.gather(*calls)

    names = asyncio.run(main())
    assert len(set(names)) == 2 and len(_threads(pool)) == 2


def test_a_call_whose_caller_went_away_still_runs_and_the_loop_closing_kills_nothing():
    pool = WorkerThreads(1, "hop-cancel")
    release, finished = threading.Event(), threading.Event()

    def slow() -> None:
        release.wait(30)
        finished.set()

    async def cancelled() -> None:
        call = asyncio.ensure_future(pool.run(slow))
        await asyncio.sleep(0)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call

    asyncio.run(cancelled())  # the loop is closed before the call ends
    release.set()
    assert finished.wait(30)

    async def again() -> int:
        return await asyncio.wait_for(pool.run(lambda: 7), 30)

    assert asyncio.run(again()) == 7  # the same thread, still serving
    assert len(_threads(pool)) == 1
