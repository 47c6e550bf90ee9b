"""The image API's route table (Glance v2): (path, method, handler, authenticated)."""

from __future__ import annotations

from novalite.api.image import (
    faults,
    image_data,
    images,
    members,
    schema_docs,
    tags,
    versions,
)
from novalite.api.profile import ApiProfile

# Glance has no microversions; its errors are webob's (see faults).
PROFILE = ApiProfile(mount="/image", fault=faults.fault)

_IMAGE = "/v2/images/{image_id}"

ROUTES = [
    ("/", "GET", versions.index, False),
    ("/versions", "GET", versions.versions, False),
    ("/v2", "GET", versions.index, False),
    ("/v2/", "GET", versions.index, False),
    ("/v2/images", "GET", images.index, True),
    ("/v2/images", "POST", images.create, True),
    (_IMAGE, "GET", images.show, True),
    (_IMAGE, "PATCH", images.update, True),
    (_IMAGE, "DELETE", images.delete, True),
    (f"{_IMAGE}/file", "PUT", image_data.upload, True),
    (f"{_IMAGE}/file", "GET", image_data.download, True),
    (f"{_IMAGE}/actions/deactivate", "POST", images.deactivate, True),
    (f"{_IMAGE}/actions/reactivate", "POST", images.reactivate, True),
    (f"{_IMAGE}/members", "GET", members.index, True),
    (f"{_IMAGE}/members", "POST", members.create, True),
    (f"{_IMAGE}/members/{{member_id}}", "GET", members.show, True),
    (f"{_IMAGE}/members/{{member_id}}", "PUT", members.update, True),
    (f"{_IMAGE}/members/{{member_id}}", "DELETE", members.delete, True),
    (f"{_IMAGE}/tags/{{tag}}", "PUT", tags.update, True),
    (f"{_IMAGE}/tags/{{tag}}", "DELETE", tags.delete, True),
    ("/v2/schemas/image", "GET", schema_docs.show_image, True),
    ("/v2/schemas/images", "GET", schema_docs.show_images, True),
    ("/v2/schemas/member", "GET", schema_docs.show_member, True),
    ("/v2/schemas/members", "GET", schema_docs.show_members, True),
]
