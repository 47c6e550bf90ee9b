"""The shape of a conductor task (as Nova's conductor/tasks/base.py): `execute` runs the
work, and a failure calls `rollback` with the exception before it propagates, so a task
that fails half-way undoes what it did before anyone sees the failure.

Move operations (resize, migrate, live migrate, evacuate, unshelve) are written on it: one
module per task under novalite/conductor/tasks/.
"""

from __future__ import annotations

import abc
import logging

from novalite.context import RequestContext

LOG = logging.getLogger(__name__)


class TaskBase(abc.ABC):
    def __init__(self, ctx: RequestContext) -> None:
        self.ctx = ctx

    def execute(self) -> None:
        try:
            self._execute()
        except Exception as exc:
            LOG.debug("%s failed, rolling back: %s", type(self).__name__, exc)
            self.rollback(exc)
            raise

    @abc.abstractmethod
    def _execute(self) -> None:
        """The work; raises on a failure `rollback` must undo."""

    @abc.abstractmethod
    def rollback(self, exc: Exception) -> None:
        """Undo what `_execute` did before it failed with `exc`; every task says what
        that is, even when it is nothing."""
