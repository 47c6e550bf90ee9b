"""How the network node's agents (DHCP, L3) keep the datapath in step with the database:
a pass that compares what exists with what should and fixes the difference, run at
start, whenever a write commits in this process (transaction.on_commit), and every
[agent] polling_interval for what other processes wrote. A failed pass is logged and the
next one tries again; a restarted agent starts with a full pass, so it adopts or removes
whatever its predecessor left."""

from __future__ import annotations

import logging
import threading

from novalite.conf import CONF
from novalite.network import transaction

LOG = logging.getLogger(__name__)


class SyncLoop:
    name = "agent"

    def __init__(self) -> None:
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def sync(self) -> None:
        raise NotImplementedError

    def start(self) -> None:
        transaction.on_commit(self._wake.set)
        self._thread = threading.Thread(target=self._loop, name=self.name, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop syncing; what it made keeps serving (a successor adopts it)."""
        transaction.on_commit(self._wake.set, remove=True)
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=30)

    def _loop(self) -> None:
        while not self._stop.is_set():
            self._wake.clear()
            try:
                self.sync()
            except Exception:  # the next pass tries again
                LOG.exception("%s sync failed", self.name)
            self._wake.wait(CONF.agent.polling_interval)
