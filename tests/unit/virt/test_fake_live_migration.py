"""The fake driver's live migration copies for [fake_driver] live_migration_seconds,
unless forced to complete (the guest leaves) or aborted (the guest stays)."""

import contextlib
import threading

import pytest

from novalite import exception
from novalite.objects.instance import Instance
from novalite.virt.fake import FakeDriver
from tests.waiting import wait_for

GUEST = Instance(uuid="u-1")


@pytest.fixture
def driver(conf):
    conf.set_override("live_migration_seconds", 600, group="fake_driver")
    driver = FakeDriver()
    driver.init_host("h1")
    driver.spawn(None, GUEST, None)
    return driver


def _copying(driver: FakeDriver) -> tuple[threading.Thread, list[Exception]]:
    failures: list[Exception] = []

    def migrate() -> None:
        try:
            driver.live_migration(None, GUEST, "h2", {})
        except Exception as exc:  # noqa: BLE001 (handed to the test)
            failures.append(exc)

    thread = threading.Thread(target=migrate)
    thread.start()
    return thread, failures


def _end(driver: FakeDriver, how) -> None:
    """Once the copy has registered (its thread has reached the wait)."""
    def ended() -> bool:
        with contextlib.suppress(exception.NovaliteException):
            how(GUEST)
            return True
        return False

    wait_for(ended, timeout=10, what="the copy's start")


def test_force_complete_ends_the_copy_and_the_guest_leaves(driver):
    thread, failures = _copying(driver)
    _end(driver, driver.live_migration_force_complete)
    thread.join(10)
    assert (failures, driver.list_instances()) == ([], [])


def test_abort_ends_the_copy_and_the_guest_stays(driver):
    thread, failures = _copying(driver)
    _end(driver, driver.live_migration_abort)
    thread.join(10)
    assert [type(f) for f in failures] == [exception.LiveMigrationAborted]
    assert driver.list_instances() == [GUEST.uuid]


def test_nothing_to_end_when_no_copy_runs(driver):
    with pytest.raises(exception.NovaliteException, match="No live migration"):
        driver.live_migration_abort(GUEST)
