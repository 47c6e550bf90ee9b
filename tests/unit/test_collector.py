"""The collector pause leaves collection as it found it, nested or not; a freeze takes
what is alive out of the collector's generations."""

import gc

import pytest

from novalite import collector


@pytest.fixture(autouse=True)
def _restore_collection():
    was = gc.isenabled()
    yield
    if was:
        gc.enable()


def test_a_pause_disables_collection_and_enables_it_again():
    gc.enable()
    with collector.paused():
        assert not gc.isenabled()
        with collector.paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the outer pause still runs
    assert gc.isenabled()


def test_a_pause_leaves_collection_off_when_it_was_off_and_survives_errors():
    gc.disable()
    with pytest.raises(ValueError), collector.paused():
        raise ValueError
    assert not gc.isenabled()
    gc.enable()
    with pytest.raises(ValueError), collector.paused():
        raise ValueError
    assert gc.isenabled()


def test_a_freeze_takes_what_is_alive_out_of_the_generations():
    kept = [[] for _ in range(100)]
    try:
        collector.freeze()
        assert gc.get_freeze_count() >= len(kept)
    finally:
        gc.unfreeze()
