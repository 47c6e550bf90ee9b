"""The compute API's business logic (Nova's compute.api.API): what "boot" and "delete"
mean, independent of HTTP. The HTTP handlers in novalite.api.compute call this."""

from __future__ import annotations

import logging
import uuid as uuidlib
from typing import Any

from novalite import exception, servicegroup
from novalite.compute import rpcapi as compute_rpcapi
from novalite.compute import states
from novalite.conductor import rpcapi as conductor_rpcapi
from novalite.context import RequestContext
from novalite.db.api import actions, flavors, images, instances, request_specs, services
from novalite.objects.flavor import Flavor
from novalite.objects.image import ImageMeta
from novalite.objects.request_spec import RequestSpec

LOG = logging.getLogger(__name__)


def _image_id(image_ref: str) -> str:
    """Nova accepts an image id or a URL ending in one."""
    return image_ref.rstrip("/").rsplit("/", 1)[-1]


class API:
    def __init__(self) -> None:
        self.conductor = conductor_rpcapi.ComputeTaskAPI()
        self.compute = compute_rpcapi.ComputeAPI()

    def _flavor(self, flavor_ref: str) -> Flavor:
        try:
            flavor = flavors.flavor_get_by_flavorid(str(flavor_ref).rstrip("/").rsplit("/")[-1])
        except exception.FlavorNotFound:
            raise exception.FlavorNotFoundForCreate(flavor_id=flavor_ref) from None
        if flavor.disabled:
            raise exception.Invalid(f"Flavor {flavor_ref} is disabled.")
        return flavor

    def _image(self, image_ref: str) -> ImageMeta:
        image_id = _image_id(image_ref)
        try:
            image = images.image_get(image_id)
        except exception.ImageNotFound:
            raise exception.Invalid(f"Image {image_id} could not be found.") from None
        if image.status != "active":
            raise exception.ImageNotActive(image_id=image_id)
        return image

    def create(
        self,
        ctx: RequestContext,
        name: str,
        flavor_ref: str,
        image_ref: str,
        min_count: int = 1,
        max_count: int = 1,
        metadata: dict[str, str] | None = None,
        availability_zone: str | None = None,
        key_name: str | None = None,
        user_data: str | None = None,
        scheduler_hints: dict[str, Any] | None = None,
    ) -> list[str]:
        """Record the instances, start the build, return their uuids at once."""
        if min_count > max_count:
            raise exception.Invalid("min_count must be <= max_count")
        flavor = self._flavor(flavor_ref)
        image = self._image(image_ref)
        reservation_id = f"r-{uuidlib.uuid4().hex[:8]}"
        uuids = [str(uuidlib.uuid4()) for _ in range(max_count)]
        spec = RequestSpec(
            instance_uuid=uuids[0], flavor=flavor, image=image, project_id=ctx.project_id,
            user_id=ctx.user_id, num_instances=max_count, min_count=min_count,
            availability_zone=availability_zone,
            scheduler_hints={k: v if isinstance(v, list) else [v]
                             for k, v in (scheduler_hints or {}).items()},
        )
        for index, instance_uuid in enumerate(uuids):
            display = name if max_count == 1 else f"{name}-{index + 1}"
            instances.instance_create({
                "uuid": instance_uuid, "display_name": display, "hostname": display,
                "project_id": ctx.project_id, "user_id": ctx.user_id,
                "image_ref": image.id, "flavor": flavor, "vm_state": states.BUILDING,
                "task_state": states.SCHEDULING, "power_state": states.NOSTATE,
                "availability_zone": availability_zone, "key_name": key_name,
                "user_data": user_data, "launch_index": index,
                "reservation_id": reservation_id,
            }, metadata)
            actions.action_start(ctx, instance_uuid, "create")
        request_specs.request_spec_create(spec)
        self.conductor.schedule_and_build_instances(ctx, spec, uuids)
        return uuids

    def delete(self, ctx: RequestContext, instance_uuid: str) -> None:
        project = None if ctx.is_admin else ctx.project_id
        instance = instances.instance_get(instance_uuid, project_id=project)
        actions.action_start(ctx, instance_uuid, "delete")
        instance = instances.instance_update(instance_uuid, {"task_state": states.DELETING})
        if instance.host and self._host_is_up(instance.host):
            self.compute.terminate_instance(ctx, instance.host, instance)
            return
        # Not on a host (still scheduling, or failed), or the host is down: nothing runs
        # there that needs stopping, so delete the record here, as Nova's local delete does.
        LOG.info("Deleting instance %s locally (host: %s)", instance_uuid, instance.host)
        instances.instance_destroy(instance_uuid)

    @staticmethod
    def _host_is_up(host: str) -> bool:
        try:
            service = services.service_get_by_host_and_binary(host, "novalite-compute")
        except exception.ComputeHostNotFound:
            return False
        return servicegroup.service_is_up(service)
