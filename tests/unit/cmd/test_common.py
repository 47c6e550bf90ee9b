"""What a user must fix ends a command in one line and exit code 2, never a traceback."""

from __future__ import annotations

import pytest
from oslo_config import cfg

from novalite import exception, state_dir
from novalite.cmd import common


def _exits(error: Exception, capsys) -> str:
    @common.exits_cleanly_on_bad_config
    def main() -> None:
        raise error

    with pytest.raises(SystemExit) as exited:
        main()
    assert exited.value.code == common.USAGE_ERROR
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    return err


@pytest.mark.parametrize(("error", "says"), [
    (cfg.ConfigFilesNotFoundError(["/etc/x.conf"]), "no such configuration file: /etc/x.conf"),
    (state_dir.StateDirError("the state directory /s is in use"), "/s is in use"),
    (common.CommandError("cannot listen on 0.0.0.0:8774"), "cannot listen"),
    (exception.ConfigInvalid(reason="bad driver"), "Invalid configuration: bad driver"),
])
def test_user_errors_are_one_line(error, says, capsys):
    assert says in _exits(error, capsys)


def test_a_bug_still_raises():
    @common.exits_cleanly_on_bad_config
    def main() -> None:
        raise KeyError("bug")

    with pytest.raises(KeyError):
        main()
