"""The image a snapshot (createImage) or a shelve writes a server's disk into, made by
the API before the compute is asked (Nova's compute_utils.create_image): private to the
server's project, named by the user, with the properties of the image the server booted
from (but its signature's and the non-inheritable ones) and those saying whose snapshot
it is. Its formats and data come from the compute's driver."""

from __future__ import annotations

from novalite.context import RequestContext
from novalite.db.api import request_specs
from novalite.image import api as image_api
from novalite.image.record import ImageRecord
from novalite.objects.instance import Instance

# Nova's, and its default [DEFAULT] non_inheritable_image_properties
NOT_INHERITED = frozenset(("img_signature_hash_method", "img_signature",
                           "img_signature_key_type", "img_signature_certificate_uuid",
                           "cache_in_nova", "bittorrent"))


def create_image(ctx: RequestContext, instance: Instance, name: str, image_type: str,
                 metadata: dict[str, str] | None = None) -> ImageRecord:
    base = request_specs.request_spec_get(instance.uuid).image
    properties = {key: str(value) for key, value in (base.properties if base else {}).items()
                  if key not in NOT_INHERITED}
    properties.update({"instance_uuid": instance.uuid, "user_id": ctx.user_id or "",
                       "image_type": image_type,
                       "base_image_ref": instance.image_ref or ""})
    properties.update(metadata or {})
    root_gb = instance.flavor.root_gb if instance.flavor else 0
    return image_api.create(ctx, ImageRecord(
        id="", name=name, visibility="private", properties=properties,
        min_ram=base.min_ram if base else 0,
        min_disk=max(base.min_disk if base else 0, root_gb)))
