"""Start-up shared by every command: parse configuration, set up logging."""

from __future__ import annotations

import sys

from novalite import __version__, log
from novalite.conf import CONF


def parse_args(argv: list[str] | None = None, default_config_files: list[str] | None = None
               ) -> None:
    CONF(sys.argv[1:] if argv is None else argv, project="novalite", version=__version__,
         default_config_files=default_config_files)
    log.setup(CONF.debug, CONF.log_file)
