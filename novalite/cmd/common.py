"""Start-up shared by every command: parse configuration, set up logging, and turn what a
user must fix into one line on standard error and exit code 2, never a traceback."""

from __future__ import annotations

import functools
import logging
import os
import sys
from collections.abc import Callable
from typing import Any

from oslo_config import cfg
from sqlalchemy.exc import DBAPIError

from novalite import __version__, exception, log, state_dir
from novalite.conf import CONF

USAGE_ERROR = 2


class CommandError(Exception):
    """What is wrong and what to do, in one line: the command exits with code 2."""


def _database_advice(exc: DBAPIError) -> str:
    reason = str(exc.orig).splitlines()[0] if exc.orig else type(exc).__name__
    where = CONF.database.connection or f"{CONF.state_path}/novalite.sqlite"
    return (f"cannot use the database {where}: {reason}; give the cloud's configuration "
            "with --config-file (its [database] connection or [DEFAULT] state_path), or "
            "create the schema with 'novalite-manage db sync'")


def parse_args(argv: list[str] | None = None, default_config_files: list[str] | None = None
               ) -> None:
    CONF(sys.argv[1:] if argv is None else argv, project="novalite", version=__version__,
         default_config_files=default_config_files)
    log.setup(CONF.debug, CONF.log_file)


def _user_error(exc: Exception) -> str | None:
    """The one line to say for an error the user can fix, or None for a bug."""
    if isinstance(exc, (CommandError, state_dir.StateDirError)):
        return str(exc)
    if isinstance(exc, cfg.ConfigFilesNotFoundError):
        return (f"no such configuration file: {', '.join(exc.config_files)}; check the "
                "path given to --config-file")
    if isinstance(exc, cfg.Error):
        return f"bad configuration: {exc}; fix the file or option it names"
    if isinstance(exc, exception.NovaliteException):
        return exc.format_message()
    if isinstance(exc, DBAPIError):
        return _database_advice(exc)
    return None


def exits_cleanly_on_bad_config(main: Callable[..., Any]) -> Callable[..., Any]:
    """A mistake the user can fix (configuration, state directory, port, database, an
    unreachable service) ends the command with one clear line (logged, and on standard
    error) and exit code 2, not a traceback."""

    @functools.wraps(main)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return main(*args, **kwargs)
        except Exception as exc:
            message = _user_error(exc)
            if message is None:
                raise
            if any(isinstance(h, logging.FileHandler) for h in logging.getLogger().handlers):
                logging.getLogger("novalite").error("%s", message)  # the log file says why
            print(f"{os.path.basename(sys.argv[0])}: {message}", file=sys.stderr)
            sys.exit(USAGE_ERROR)

    return wrapper
