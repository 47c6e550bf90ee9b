"""RequestSpecPayload: scheduler.select_destinations.start/.end.

Nova's payload has an `image_meta` field it never sets, so its samples (and consumers)
never see it: it is left out here. NUMA topology is null (novalite's request spec derives
it from the flavor and image anew in each scheduler) and the PCI requests are an empty list.
"""

from __future__ import annotations

from novalite.notifications.objects.base import Payload, payload
from novalite.notifications.objects.flavor import FlavorPayload
from novalite.notifications.objects.image import ImageMetaPayload
from novalite.notifications.objects.server_group import ServerGroupPayload
from novalite.objects.request_spec import RequestSpec


@payload
class InstancePCIRequestsPayload(Payload):
    NAME = "InstancePCIRequestsPayload"
    VERSION = "1.0"

    instance_uuid: str
    requests: list[Payload]


@payload
class DestinationPayload(Payload):
    NAME = "DestinationPayload"
    VERSION = "1.0"

    host: str | None
    node: str | None
    cell: Payload | None
    aggregates: list[str] | None


@payload
class SchedulerRetriesPayload(Payload):
    NAME = "SchedulerRetriesPayload"
    VERSION = "1.0"

    num_attempts: int
    hosts: list[str]


@payload
class RequestSpecPayload(Payload):
    NAME = "RequestSpecPayload"
    VERSION = "1.1"  # 1.1: force_*, ignore_hosts, image_meta, instance_group, ...

    instance_uuid: str
    project_id: str | None
    user_id: str | None
    availability_zone: str | None
    flavor: FlavorPayload | None
    force_hosts: str | None
    force_nodes: str | None
    ignore_hosts: list[str] | None
    instance_group: ServerGroupPayload | None
    image: ImageMetaPayload | None
    numa_topology: Payload | None
    pci_requests: InstancePCIRequestsPayload | None
    num_instances: int
    requested_destination: DestinationPayload | None
    retry: SchedulerRetriesPayload | None
    scheduler_hints: dict[str, list[str]] | None
    security_groups: list[str]

    @classmethod
    def from_spec(cls, spec: RequestSpec) -> RequestSpecPayload:
        """As Nova's: the first forced host and node only; retry hosts by node name."""
        group, dest, retry = spec.instance_group, spec.requested_destination, spec.retry
        return cls(
            instance_uuid=spec.instance_uuid, project_id=spec.project_id,
            user_id=spec.user_id, availability_zone=spec.availability_zone,
            flavor=FlavorPayload.from_flavor(spec.flavor),
            force_hosts=spec.force_hosts[0] if spec.force_hosts else None,
            force_nodes=spec.force_nodes[0] if spec.force_nodes else None,
            ignore_hosts=list(spec.ignore_hosts) or None,
            instance_group=ServerGroupPayload.make(
                group.uuid, None, None, None, group.policy, group.rules, group.members,
                list(group.hosts)) if group else None,
            image=ImageMetaPayload.from_image(spec.image) if spec.image else None,
            numa_topology=None,
            pci_requests=InstancePCIRequestsPayload(instance_uuid=spec.instance_uuid,
                                                    requests=[]),
            num_instances=spec.num_instances,
            requested_destination=DestinationPayload(
                host=dest.host, node=dest.node, cell=None, aggregates=None)
            if dest else None,
            retry=SchedulerRetriesPayload(
                num_attempts=retry.num_attempts,
                hosts=[node for _host, node, *_ in retry.hosts]) if retry else None,
            scheduler_hints={k: [str(v) for v in (vs if isinstance(vs, list) else [vs])]
                             for k, vs in spec.scheduler_hints.items()},
            security_groups=[])
