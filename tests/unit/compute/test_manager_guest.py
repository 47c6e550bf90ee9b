"""The compute manager's console tailing and its lifecycle-event hand-off."""

import threading

import pytest

from novalite import exception
from novalite.compute.manager import ComputeManager
from novalite.objects.instance import Instance
from novalite.virt.driver import EVENT_LIFECYCLE_STOPPED, LifecycleEvent

GUEST = Instance(uuid="u-1")


@pytest.fixture
def manager(conf):
    manager = ComputeManager("h1")
    manager.driver.init_host("h1")
    manager.driver.spawn(None, GUEST, None)
    manager.driver.consoles["u-1"] = ["one", "two", "three"]
    yield manager
    manager.cleanup_host()


@pytest.mark.parametrize(("tail", "output"), [
    (None, "one\ntwo\nthree\n"),
    (-1, "one\ntwo\nthree\n"),
    (0, ""),
    (2, "two\nthree\n"),
    (10, "one\ntwo\nthree\n"),
])
def test_console_output_keeps_the_last_lines(manager, tail, output):
    assert manager.get_console_output(None, GUEST, tail) == output


def test_a_driver_without_a_console_has_none_available(manager):
    def unsupported(ctx, instance):
        raise NotImplementedError()
    manager.driver.get_console_output = unsupported
    with pytest.raises(exception.ConsoleNotAvailable,
                       match="Guest does not have a console available."):
        manager.get_console_output(None, GUEST, None)


def test_lifecycle_events_are_handled_off_the_drivers_thread(manager):
    handled = []
    done = threading.Event()

    def handle(event):
        handled.append((event, threading.current_thread().name))
        done.set()
    manager._handle_lifecycle_event = handle
    manager.driver.register_event_listener(manager._queue_lifecycle_event)
    manager.driver.crash("u-1")
    assert done.wait(5)
    event, thread = handled[0]
    assert event == LifecycleEvent("u-1", EVENT_LIFECYCLE_STOPPED)
    assert thread.startswith("lifecycle-h1") and thread != threading.current_thread().name


def test_after_cleanup_the_driver_no_longer_reaches_the_manager(manager):
    manager.driver.register_event_listener(manager._queue_lifecycle_event)
    manager.cleanup_host()
    manager.driver.crash("u-1")  # nobody listens: no error, nothing queued
    handled = []
    manager._handle_lifecycle_event = handled.append
    manager._queue_lifecycle_event(LifecycleEvent("u-1", EVENT_LIFECYCLE_STOPPED))
    manager._lifecycle_events.submit(lambda: None).result(timeout=5)
    assert handled == [LifecycleEvent("u-1", EVENT_LIFECYCLE_STOPPED)]  # usable again
