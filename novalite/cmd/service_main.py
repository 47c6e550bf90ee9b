"""The shared main of the RPC services (conductor, scheduler, compute)."""

from __future__ import annotations

from collections.abc import Callable

from novalite import affinity
from novalite.cmd import common
from novalite.service.base import Service, run_until_signalled


@common.exits_cleanly_on_bad_config
def run(make: Callable[[], Service], needs_database: bool = True) -> None:
    common.parse_args()
    affinity.pin()
    if needs_database:
        from novalite.db import session

        session.wait_for_database()
    run_until_signalled([make()])
