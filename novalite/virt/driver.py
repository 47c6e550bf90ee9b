"""The compute driver contract, with Nova's method names, and loading drivers by name.

A driver registers under the entry-point group `novalite.virt.drivers`; `[DEFAULT]
compute_driver` picks one by name.
"""

from __future__ import annotations

import abc
import dataclasses
from importlib.metadata import entry_points
from typing import Any

from novalite import exception
from novalite.objects.image import ImageMeta
from novalite.objects.instance import Instance

NAMESPACE = "novalite.virt.drivers"


@dataclasses.dataclass
class InstanceInfo:
    state: int  # a power state from novalite.compute.states


class ComputeDriver(abc.ABC):
    capabilities: dict[str, bool] = {}

    def init_host(self, host: str) -> None:  # noqa: B027 (optional hook)
        """Prepare the hypervisor before the service takes work."""

    @abc.abstractmethod
    def get_available_nodes(self, refresh: bool = False) -> list[str]:
        """Names of the hypervisor nodes this service manages."""

    @abc.abstractmethod
    def get_available_resource(self, nodename: str) -> dict[str, Any]:
        """Totals and hypervisor facts of a node (vcpus, memory_mb, local_gb, ...)."""

    @abc.abstractmethod
    def list_instances(self) -> list[str]:
        """Names of the instances the hypervisor runs."""

    @abc.abstractmethod
    def get_info(self, instance: Instance) -> InstanceInfo:
        """Power state of one instance; raises InstanceNotFound if the hypervisor lacks it."""

    @abc.abstractmethod
    def spawn(self, ctx: Any, instance: Instance, image_meta: ImageMeta | None,
              power_on: bool = True) -> None:
        """Create and start the guest."""

    @abc.abstractmethod
    def destroy(self, ctx: Any, instance: Instance, destroy_disks: bool = True) -> None:
        """Stop the guest and remove it; a guest that is already gone is not an error."""

    def power_off(self, instance: Instance, timeout: int = 0, retry_interval: int = 0) -> None:
        """Stop the guest: ask it to shut down, waiting up to `timeout` seconds (asking
        again every `retry_interval`), then force it off. `timeout=0` forces at once."""
        raise NotImplementedError()

    def power_on(self, ctx: Any, instance: Instance) -> None:
        """Start a stopped guest."""
        raise NotImplementedError()

    def reboot(self, ctx: Any, instance: Instance, reboot_type: str) -> None:
        """Restart the guest: "SOFT" asks it to, "HARD" power-cycles it (and recreates it
        from its disks if the hypervisor lost it)."""
        raise NotImplementedError()

    def node_uuid(self, nodename: str) -> str | None:
        """A stable uuid for the node, if the hypervisor has one."""
        return None


def load_driver(name: str, **kwargs: Any) -> ComputeDriver:
    found = entry_points(group=NAMESPACE, name=name)
    if not found:
        known = ", ".join(sorted(ep.name for ep in entry_points(group=NAMESPACE)))
        raise exception.VirtDriverNotFound(name=name, known=known)
    return next(iter(found)).load()(**kwargs)
