"""The source's side of a live migration against a scripted QMP: an abort, whenever it
comes, leaves a guest that ran running on the source; a guest without a disk to mirror
(volume-backed) moves with its memory alone; a TCG guest is paused for the copy of its
memory, after its disk's mirror; the copy takes [libvirt] live_migration_bandwidth."""

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
        self.parameters: dict = {}

    def status(self) -> str:
        return self.state

    def qmp(self, command: str, **arguments):
        self.sent.append(command)
        if command == "migrate-set-parameters":
            self.parameters.update(arguments)
        if command == "query-block-jobs":
            return [] if "block-job-cancel" in self.sent else [
                {"device": live_migration.JOB, "ready": True}]
        if command == "migrate":
            self.state = "finish-migrate" if self.reached == "pre-switchover" else "running"
        if command == "query-migrate":
            return {"status": "cancelled" if "migrate_cancel" in self.sent else self.reached}
        if command == "cont":
            self.state = "running"
        if command == "stop":
            self.state = "paused"
        return {}


@pytest.mark.parametrize("pause_copy", [False, True])
@pytest.mark.parametrize("reached", ["active", "pre-switchover"])
def test_an_abort_leaves_the_guest_running_here(reached, pause_copy):
    guest = ScriptedGuest(reached)
    control = live_migration.Control()
    control.abort.set()
    with pytest.raises(exception.LiveMigrationAborted):
        live_migration.send(guest, {"nbd": "nbd://x", "uri": "tcp:x:1"}, control, 30,
                            pause_copy)
    assert guest.state == "running"
    assert "migrate_cancel" in guest.sent


class SwitchingGuest(ScriptedGuest):
    """A source QEMU whose migration pauses before the switch-over, then completes."""

    def qmp(self, command: str, **arguments):
        if command == "query-migrate":
            self.sent.append(command)
            return {"status": "completed" if "migrate-continue" in self.sent
                    else "pre-switchover" if "migrate" in self.sent else "active"}
        return super().qmp(command, **arguments)


def test_without_a_disk_on_the_destination_nothing_is_mirrored():
    guest = SwitchingGuest("pre-switchover")
    live_migration.send(guest, {"uri": "tcp:x:1"}, live_migration.Control(), 30)
    assert not {"drive-mirror", "block-job-cancel", "query-block-jobs"} & set(guest.sent)
    assert guest.sent[-2:] == ["migrate-continue", "query-migrate"]


@pytest.mark.parametrize("accel", ["tcg", "kvm"])
def test_a_tcg_guest_is_paused_for_its_memory_copy_once_its_disk_is_mirrored(accel):
    guest = SwitchingGuest("pre-switchover")
    live_migration.send(guest, {"nbd": "nbd://x", "uri": "tcp:x:1"},
                        live_migration.Control(), 30, live_migration.pauses_for_copy(accel))
    started = guest.sent.index("migrate")
    assert ("stop" in guest.sent[:started]) == (accel == "tcg")
    assert "stop" not in guest.sent[started:]
    if accel == "tcg":
        assert guest.sent.index("query-block-jobs") < guest.sent.index("stop")


@pytest.mark.parametrize(("option", "max_bandwidth"), [(0, 1 << 50), (40, 40 << 20)])
def test_the_copy_takes_the_bandwidth_the_option_gives(conf, option, max_bandwidth):
    conf.set_override("live_migration_bandwidth", option, group="libvirt")
    guest = SwitchingGuest("pre-switchover")
    live_migration.send(guest, {"uri": "tcp:x:1"}, live_migration.Control(), 30)
    assert guest.parameters["max-bandwidth"] == max_bandwidth
    assert guest.sent.index("migrate-set-parameters") < guest.sent.index("migrate")
