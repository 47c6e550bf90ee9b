"""A simulated host's guests outlive its compute service (the fake driver's store)."""

import json
from pathlib import Path

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


def _store(conf, host: str = "h1") -> Path:
    return Path(conf.state_path) / "fake-guests" / host


def test_each_guest_is_kept_in_a_file_of_its_own(conf):
    """A spawn or a destroy writes its own guest's file alone, not every guest's."""
    driver = _restarted()
    driver.spawn(None, GUEST, None)
    driver.spawn(None, GONE, None)
    kept = (_store(conf) / f"{GUEST.uuid}.json").stat().st_mtime_ns
    driver.destroy(None, GONE)
    assert sorted(p.name for p in _store(conf).iterdir()) == [f"{GUEST.uuid}.json"]
    assert (_store(conf) / f"{GUEST.uuid}.json").stat().st_mtime_ns == kept


def test_a_host_kept_in_one_file_comes_back_a_file_a_guest(conf):
    """As novalite kept guests before; an unfinished write is no guest."""
    (_store(conf).parent).mkdir(parents=True)
    _store(conf).with_suffix(".json").write_text(json.dumps({GUEST.uuid: {
        "power_state": states.SHUTDOWN, "console": ["login:"]}}))
    driver = _restarted()
    assert driver.list_instances() == [GUEST.uuid]
    assert driver.get_info(GUEST).state == states.SHUTDOWN
    assert not _store(conf).with_suffix(".json").exists()
    (_store(conf) / f"{GONE.uuid}.json.tmp").write_text("{")
    again = _restarted()
    assert again.list_instances() == [GUEST.uuid]
    assert again.get_console_output(None, GUEST) == driver.get_console_output(None, GUEST)
