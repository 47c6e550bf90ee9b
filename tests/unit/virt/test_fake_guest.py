"""The fake driver's pause/suspend, console log and simulated crash."""

import pytest

from novalite import exception
from novalite.objects import states
from novalite.objects.instance import Instance
from novalite.virt.driver import EVENT_LIFECYCLE_STOPPED, LifecycleEvent
from novalite.virt.fake import FakeDriver

GUEST = Instance(uuid="u-1")


@pytest.fixture
def driver(conf):
    driver = FakeDriver()
    driver.init_host("h1")
    driver.spawn(None, GUEST, None)
    return driver


def _power(driver) -> int:
    return driver.get_info(GUEST).state


def test_pause_and_suspend_round_trips(driver):
    driver.pause(GUEST)
    assert _power(driver) == states.POWER_PAUSED
    driver.unpause(GUEST)
    assert _power(driver) == states.RUNNING
    driver.suspend(None, GUEST)
    assert _power(driver) == states.POWER_SUSPENDED
    driver.resume(None, GUEST)
    assert _power(driver) == states.RUNNING


def test_a_guest_in_the_wrong_power_state_is_refused(driver):
    driver.power_off(GUEST)
    with pytest.raises(exception.InstanceInvalidState,
                       match="Cannot 'pause' instance u-1 while it is in power_state shutdown"):
        driver.pause(GUEST)
    for call in (lambda: driver.unpause(GUEST), lambda: driver.resume(None, GUEST)):
        with pytest.raises(exception.InstanceInvalidState):
            call()
    assert _power(driver) == states.SHUTDOWN


def test_the_console_log_tells_what_the_guest_went_through(driver):
    driver.power_off(GUEST)
    driver.power_on(None, GUEST)
    lines = driver.get_console_output(None, GUEST).splitlines()
    messages = [line.split("] ", 1)[1] for line in lines]
    assert messages[0] == "novalite fake guest u-1 created on h1"
    assert messages.count("Run /init as init process") == 2  # booted twice
    assert "reboot: Power down" in messages
    assert all(line.startswith("[") for line in lines)


def test_a_lost_guest_has_no_console(driver):
    driver.destroy(None, GUEST)
    with pytest.raises(exception.InstanceNotFound):
        driver.get_console_output(None, GUEST)


def test_a_crash_shuts_the_guest_down_and_tells_the_listener(driver):
    heard = []
    driver.register_event_listener(heard.append)
    driver.crash("u-1")
    assert _power(driver) == states.SHUTDOWN
    assert heard == [LifecycleEvent("u-1", EVENT_LIFECYCLE_STOPPED)]
    assert "Kernel panic" in driver.get_console_output(None, GUEST)
    with pytest.raises(exception.InstanceNotFound):
        driver.crash("u-2")


def test_resume_on_host_boot_recreates_a_lost_guest(driver):
    driver.destroy(None, GUEST)
    driver.resume_state_on_host_boot(None, GUEST)
    assert _power(driver) == states.RUNNING
    assert "Run /init as init process" in driver.get_console_output(None, GUEST)
