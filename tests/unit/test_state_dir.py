"""One all-in-one per state directory: the lock file's pid, refusal, clean-up, takeover."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from novalite import state_dir


def test_a_second_owner_is_refused_naming_the_first(tmp_path):
    first = state_dir.StateDirLock(str(tmp_path))
    first.acquire()
    holder = subprocess.run(
        [sys.executable, "-c", "import sys; from novalite import state_dir\n"
         "try:\n    state_dir.StateDirLock(sys.argv[1]).acquire()\n"
         "except state_dir.StateDirError as e:\n    print(e)", str(tmp_path)],
        capture_output=True, text=True, check=True)
    assert f"in use by another novalite all-in-one (pid {os.getpid()})" in holder.stdout
    first.release()
    assert not (tmp_path / state_dir.LOCK_FILE).exists()


def test_status_is_the_published_banner_while_held(tmp_path):
    lock = state_dir.StateDirLock(str(tmp_path))
    assert state_dir.status(str(tmp_path)) is None
    lock.acquire()
    assert "is starting" in state_dir.status(str(tmp_path))
    lock.publish("novalite all-in-one is running: ...")
    assert state_dir.status(str(tmp_path)) == "novalite all-in-one is running: ..."
    lock.release()
    assert state_dir.status(str(tmp_path)) is None


def test_a_file_left_by_a_crash_is_taken_over(tmp_path, caplog):
    caplog.set_level("INFO", logger="novalite.state_dir")
    (tmp_path / state_dir.LOCK_FILE).write_text("999999\nold banner")
    assert state_dir.status(str(tmp_path)) is None
    lock = state_dir.StateDirLock(str(tmp_path))
    lock.acquire()
    assert "from pid 999999" in caplog.text
    assert (tmp_path / state_dir.LOCK_FILE).read_text() == f"{os.getpid()}\n"
    lock.release()


def test_an_unwritable_directory_says_what_to_do(tmp_path):
    if os.geteuid() == 0:
        target = "/proc/novalite-state"  # root writes anywhere but here
    else:
        tmp_path.chmod(0o500)
        target = str(tmp_path / "state")
    with pytest.raises(state_dir.StateDirError, match="choose a writable one with --state-dir"):
        state_dir.StateDirLock(target).acquire()
