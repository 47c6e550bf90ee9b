"""The scheduler driver contract, and loading a driver by its entry-point name."""

from __future__ import annotations

import abc

from novalite import exception, plugins
from novalite.context import RequestContext
from novalite.objects.request_spec import RequestSpec, Selection
from novalite.scheduler.host_manager import HostManager

NAMESPACE = "novalite.scheduler.driver"

# What [DEFAULT] scheduler_driver said in the releases that had the option.
LEGACY_NAMES = {
    "nova.scheduler.filter_scheduler.FilterScheduler": "filter_scheduler",
    "nova.scheduler.chance.ChanceScheduler": "chance_scheduler",
}


class Scheduler(abc.ABC):
    def __init__(self, host_manager: HostManager | None = None) -> None:
        self.host_manager = host_manager or HostManager()

    @abc.abstractmethod
    def select_destinations(self, ctx: RequestContext, spec: RequestSpec,
                            instance_uuids: list[str], return_alternates: bool
                            ) -> list[list[Selection]]:
        """Per instance: [chosen, *alternates]. Raises NoValidHost when fewer than
        spec.min_count instances can be placed."""


def load_scheduler(name: str) -> Scheduler:
    name = LEGACY_NAMES.get(name, name)
    found = plugins.namespace(NAMESPACE).get(name)
    if found is None:
        raise exception.ConfigInvalid(
            reason=f"[scheduler] driver = {name} is not a known scheduler driver "
            f"(known: {', '.join(plugins.known(NAMESPACE))})")
    return found.load()()
