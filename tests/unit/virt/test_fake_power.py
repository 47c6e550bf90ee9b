import pytest

from novalite import exception
from novalite.objects import states
from novalite.objects.instance import Instance
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


def test_power_off_and_on_show_in_get_info(driver):
    driver.power_off(GUEST, timeout=60, retry_interval=10)
    assert _power(driver) == states.SHUTDOWN
    driver.power_on(None, GUEST)
    assert _power(driver) == states.RUNNING


@pytest.mark.parametrize("reboot_type", ["SOFT", "HARD"])
def test_a_reboot_leaves_the_guest_running(driver, reboot_type):
    driver.power_off(GUEST)
    driver.reboot(None, GUEST, reboot_type)
    assert _power(driver) == states.RUNNING


def test_only_a_hard_reboot_recreates_a_lost_guest(driver):
    driver.destroy(None, GUEST)
    for call in (lambda: driver.power_off(GUEST), lambda: driver.power_on(None, GUEST),
                 lambda: driver.reboot(None, GUEST, "SOFT")):
        with pytest.raises(exception.InstanceNotFound):
            call()
    driver.reboot(None, GUEST, "HARD")
    assert _power(driver) == states.RUNNING


def test_a_crash_dump_needs_a_guest_that_runs(driver):
    driver.trigger_crash_dump(GUEST)
    assert "NMI received" in driver.get_console_output(None, GUEST)
    driver.power_off(GUEST)
    with pytest.raises(exception.InstanceNotRunning):
        driver.trigger_crash_dump(GUEST)
