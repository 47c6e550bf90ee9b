"""Start-up shared by every command: parse configuration, set up logging."""

from __future__ import annotations

import functools
import logging
import sys
from collections.abc import Callable
from typing import Any

from novalite import __version__, exception, log
from novalite.conf import CONF


def parse_args(argv: list[str] | None = None, default_config_files: list[str] | None = None
               ) -> None:
    CONF(sys.argv[1:] if argv is None else argv, project="novalite", version=__version__,
         default_config_files=default_config_files)
    log.setup(CONF.debug, CONF.log_file)


def exits_cleanly_on_bad_config(main: Callable[..., Any]) -> Callable[..., Any]:
    """A configuration mistake ends the command with a clear message (logged, and on
    standard error), not a traceback."""

    @functools.wraps(main)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return main(*args, **kwargs)
        except exception.ConfigInvalid as exc:
            logging.getLogger("novalite").error("%s", exc.format_message())
            print(f"{sys.argv[0]}: {exc.format_message()}", file=sys.stderr)
            sys.exit(2)

    return wrapper
