"""What the scheduler is asked to place, and what it answers (RequestSpec, Selection).

The parts of a request spec that other services fill in (the server group, the hosts a
reschedule tried, a requested destination) are objects of their own, as Nova's
InstanceGroup, SchedulerRetries and Destination are, so each side reads named fields
rather than agreeing on dict keys. A request spec stored (or sent by an older peer)
before they were objects holds them as dicts: the spec turns those into the objects.

A Selection carries the placement candidate for its host as an AllocationRequest; one
sent by an older peer in placement's dict form becomes the object on receipt.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

from novalite.objects import base
from novalite.objects.allocation_request import AllocationRequest
from novalite.objects.flavor import Flavor
from novalite.objects.image import ImageMeta

_T = TypeVar("_T", bound=base.NovaliteObject)


@base.register
class InstanceGroup(base.NovaliteObject):
    """The request's server group as the scheduler sees it: its policy and rules, its
    members, and the hosts its placed members are on."""

    VERSION = "1.0"

    uuid: str = ""
    policy: str | None = None
    rules: dict[str, Any] = dataclasses.field(default_factory=dict)
    members: list[str] = dataclasses.field(default_factory=list)
    hosts: list[str] = dataclasses.field(default_factory=list)

    @property
    def max_server_per_host(self) -> int:
        """The anti-affinity rule (1 when the group has none)."""
        return int((self.rules or {}).get("max_server_per_host", 1))


@base.register
class SchedulerRetries(base.NovaliteObject):
    """The hosts a reschedule of this build already tried, as [host, node] pairs."""

    VERSION = "1.0"

    num_attempts: int = 1
    hosts: list[list[str]] = dataclasses.field(default_factory=list)

    def tried(self) -> set[tuple[str, str]]:
        return {(host, node) for host, node in self.hosts}


@base.register
class Destination(base.NovaliteObject):
    """Where the request asks to go (2.74 boot, moves): the filters still judge it. A
    cross-cell move names the source `cell` and whether the move may leave it."""

    VERSION = "1.0"

    host: str | None = None
    node: str | None = None
    cell: str | None = None
    allow_cross_cell_move: bool = False


@base.register
class UnshelvePlacement(base.NovaliteObject):
    """Where an unshelve asks the server to go: a zone (2.77), with 2.91 possibly none
    (`unpin`: the server forgets the zone it was pinned to), and a host (2.91, admins)."""

    VERSION = "1.0"

    availability_zone: str | None = None
    unpin: bool = False
    host: str | None = None


def _coerce(cls: type[_T], value: object) -> _T | None:
    """The object for a value that may still be in its old dict form."""
    if value is None or isinstance(value, cls):
        return value
    if isinstance(value, dict):
        return cls.from_fields(value)
    raise TypeError(f"{cls.__name__} expected, got {type(value).__name__}")


@base.register
class RequestSpec(base.NovaliteObject):
    """Everything that decides where instances may go, stored for later moves."""

    # 1.1: requested_destination; 1.2: retry; 1.3: instance_group, retry and
    # requested_destination are objects (InstanceGroup, SchedulerRetries, Destination);
    # 1.4: is_bfv
    VERSION = "1.4"

    instance_uuid: str
    flavor: Flavor
    image: ImageMeta | None = None
    project_id: str | None = None
    user_id: str | None = None
    num_instances: int = 1
    min_count: int = 1
    availability_zone: str | None = None
    scheduler_hints: dict[str, list[Any]] = dataclasses.field(default_factory=dict)
    force_hosts: list[str] = dataclasses.field(default_factory=list)
    force_nodes: list[str] = dataclasses.field(default_factory=list)
    ignore_hosts: list[str] = dataclasses.field(default_factory=list)
    instance_group: InstanceGroup | None = None
    requested_destination: Destination | None = None
    retry: SchedulerRetries | None = None  # the RetryFilter skips the hosts it names
    is_bfv: bool = False  # volume-backed: the root disk takes no local disk

    def __post_init__(self) -> None:
        self.instance_group = _coerce(InstanceGroup, self.instance_group)
        self.requested_destination = _coerce(Destination, self.requested_destination)
        self.retry = _coerce(SchedulerRetries, self.retry)

    def get_scheduler_hint(self, name: str, default: Any = None) -> Any:
        """A hint's value as Nova's filters read it: a one-item list is its item (any
        JSON the user sent, so Any: each filter checks the shape it needs)."""
        value = self.scheduler_hints.get(name)
        if value is None:
            return default
        return value[0] if isinstance(value, list) and len(value) == 1 else value


@base.register
class Selection(base.NovaliteObject):
    """One host the scheduler chose (or an alternate to reschedule onto)."""

    # 1.1: decision; 1.2: allocation_request(_version); 1.3: allocation_request is an
    # AllocationRequest
    VERSION = "1.3"

    service_host: str
    nodename: str
    compute_node_uuid: str
    instance_uuid: str
    availability_zone: str | None = None
    limits: dict[str, Any] = dataclasses.field(default_factory=dict)
    decision: str | None = None  # why this host: the filter funnel and the top weights
    # The placement candidate for this host: claimed for the chosen host, to be claimed
    # by the conductor for an alternate when a reschedule reaches it.
    allocation_request: AllocationRequest | None = None
    allocation_request_version: str | None = None

    def __post_init__(self) -> None:
        if isinstance(self.allocation_request, dict):  # placement's form, from before 1.3
            self.allocation_request = AllocationRequest.from_placement(
                self.allocation_request)


@base.register
class FilterProperties(base.NovaliteObject):
    """Per-build bookkeeping that rides along a reschedule: attempts and hosts tried."""

    VERSION = "1.0"

    num_attempts: int = 1
    hosts: list[list[str]] = dataclasses.field(default_factory=list)
    last_error: str | None = None
