"""A simulated host's guests outlive its compute service (the fake driver's store)."""

from novalite.objects import states
from novalite.objects.instance import Instance
from novalite.virt.fake import FakeDriver

GUEST, GONE = Instance(uuid="u-1"), Instance(uuid="u-2")


def _restarted(host: str = "h1") -> FakeDriver:
    driver = FakeDriver()
    driver.init_host(host)
    return driver


def test_guests_come_back_with_their_power_state_and_console(conf):
    driver = _restarted()
    driver.spawn(None, GUEST, None)
    driver.spawn(None, GONE, None)
    driver.power_off(GUEST)
    driver.destroy(None, GONE)
    console = driver.get_console_output(None, GUEST)

    again = _restarted()
    assert again.list_instances() == [GUEST.uuid]
    assert again.get_info(GUEST).state == states.SHUTDOWN
    assert again.get_console_output(None, GUEST) == console
    again.power_on(None, GUEST)
    assert _restarted().get_info(GUEST).state == states.RUNNING
    assert _restarted("h2").list_instances() == []


def test_nothing_is_kept_when_persistence_is_off(conf):
    conf.set_override("persist_guests", False, group="fake_driver")
    _restarted().spawn(None, GUEST, None)
    assert _restarted().list_instances() == []
