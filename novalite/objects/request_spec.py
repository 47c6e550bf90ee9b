"""What the scheduler is asked to place, and what it answers (RequestSpec, Selection)."""

from __future__ import annotations

import dataclasses

from novalite.objects import base
from novalite.objects.flavor import Flavor
from novalite.objects.image import ImageMeta


@base.register
class RequestSpec(base.NovaliteObject):
    """Everything that decides where instances may go, stored for later moves."""

    VERSION = "1.2"  # 1.1: requested_destination; 1.2: retry

    instance_uuid: str
    flavor: Flavor
    image: ImageMeta | None = None
    project_id: str | None = None
    user_id: str | None = None
    num_instances: int = 1
    min_count: int = 1
    availability_zone: str | None = None
    scheduler_hints: dict[str, list] = dataclasses.field(default_factory=dict)
    force_hosts: list[str] = dataclasses.field(default_factory=list)
    force_nodes: list[str] = dataclasses.field(default_factory=list)
    ignore_hosts: list[str] = dataclasses.field(default_factory=list)
    instance_group: dict | None = None
    # {"host": ..., "node": ...}: a destination the filters still judge (2.74 boot, moves);
    # a cross-cell move adds "cell" (the source cell's uuid) and "allow_cross_cell_move".
    requested_destination: dict | None = None
    # Hosts a reschedule already tried, {"num_attempts": n, "hosts": [[host, node], ...]}
    # (Nova's legacy SchedulerRetries; the RetryFilter skips them).
    retry: dict | None = None

    def get_scheduler_hint(self, name: str, default: object = None) -> object:
        """A hint's value as Nova's filters read it: a one-item list is its item."""
        value = self.scheduler_hints.get(name)
        if value is None:
            return default
        return value[0] if isinstance(value, list) and len(value) == 1 else value


@base.register
class Selection(base.NovaliteObject):
    """One host the scheduler chose (or an alternate to reschedule onto)."""

    VERSION = "1.2"  # 1.1: decision; 1.2: allocation_request(_version)

    service_host: str
    nodename: str
    compute_node_uuid: str
    instance_uuid: str
    availability_zone: str | None = None
    limits: dict = dataclasses.field(default_factory=dict)
    decision: str | None = None  # why this host: the filter funnel and the top weights
    # The placement candidate for this host: claimed for the chosen host, to be claimed
    # by the conductor for an alternate when a reschedule reaches it.
    allocation_request: dict | None = None
    allocation_request_version: str | None = None


@base.register
class FilterProperties(base.NovaliteObject):
    """Per-build bookkeeping that rides along a reschedule: attempts and hosts tried."""

    VERSION = "1.0"

    num_attempts: int = 1
    hosts: list[list[str]] = dataclasses.field(default_factory=list)
    last_error: str | None = None
