"""Image views of Nova's image proxy (before 2.36): Glance's images in Nova's v2 shapes."""

from __future__ import annotations

from typing import Any

from novalite import strutils
from novalite.api.compute.views import isotime, links
from novalite.image.record import ImageRecord

# Glance's status -> Nova's (anything else is UNKNOWN)
_STATUS = {"active": "ACTIVE", "queued": "SAVING", "saving": "SAVING", "deleted": "DELETED",
           "pending_delete": "DELETED", "killed": "ERROR"}
_PROGRESS = {"queued": 25, "saving": 50, "active": 100}


def image_service_url(base_url: str, image_id: str) -> str:
    """The image's own URL in the image service, served beside the compute API."""
    return f"{base_url.removesuffix('/compute')}/image/images/{image_id}"


def _links(image_id: str, base_url: str) -> list[dict[str, str]]:
    """Nova's self and bookmark links, and the image service's own as `alternate`."""
    return [*links(base_url, "images", image_id),
            {"rel": "alternate", "type": "application/vnd.openstack.image",
             "href": image_service_url(base_url, image_id)}]


def basic(image: ImageRecord, base_url: str) -> dict[str, Any]:
    return {"id": image.id, "name": image.name, "links": _links(image.id, base_url)}


def detail(image: ImageRecord, base_url: str) -> dict[str, Any]:
    body: dict[str, Any] = {
        **basic(image, base_url),
        "minRam": image.min_ram or 0, "minDisk": image.min_disk or 0,
        "metadata": dict(image.properties),
        "created": isotime(image.created_at),
        "updated": isotime(image.updated_at or image.created_at),
        "status": _STATUS.get(image.status, "UNKNOWN"),
        "progress": _PROGRESS.get(image.status, 0),
        "OS-EXT-IMG-SIZE:size": image.size,
    }
    server = image.properties.get("instance_uuid")
    if server is not None:
        server_links = links(base_url, "servers", server)
        body["server"] = {"id": server, "links": server_links}
    disk_config = image.properties.get("auto_disk_config")
    if disk_config is not None:
        body["OS-DCF:diskConfig"] = "AUTO" if strutils.parse_bool(disk_config) else "MANUAL"
    return body


