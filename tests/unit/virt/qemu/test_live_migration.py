"""The source's side of a live migration against a scripted QMP: an abort, whenever it
comes, leaves a guest that ran running on the source."""

import pytest

from novalite import exception
from novalite.virt.qemu import live_migration


class ScriptedGuest:
    """Answers QMP as a source QEMU whose migration reaches `reached` and stays there."""

    uuid = "guest-1"

    def __init__(self, reached: str) -> None:
        self.reached = reached
        self.state = "running"
        self.sent: list[str] = []

    def status(self) -> str:
        return self.state

    def qmp(self, command: str, **arguments):
        self.sent.append(command)
        if command == "query-block-jobs":
            return [] if "block-job-cancel" in self.sent else [
                {"device": live_migration.JOB, "ready": True}]
        if command == "migrate":
            self.state = "finish-migrate" if self.reached == "pre-switchover" else "running"
        if command == "query-migrate":
            return {"status": "cancelled" if "migrate_cancel" in self.sent else self.reached}
        if command == "cont":
            self.state = "running"
        return {}


@pytest.mark.parametrize("reached", ["active", "pre-switchover"])
def test_an_abort_leaves_the_guest_running_here(reached):
    guest = ScriptedGuest(reached)
    control = live_migration.Control()
    control.abort.set()
    with pytest.raises(exception.LiveMigrationAborted):
        live_migration.send(guest, {"nbd": "nbd://x", "uri": "tcp:x:1"}, control, 30)
    assert guest.state == "running"
    assert "migrate_cancel" in guest.sent
