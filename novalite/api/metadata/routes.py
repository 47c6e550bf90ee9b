"""The metadata API's route table: what guests' requests to 169.254.169.254 reach through
the network node's proxy. No token: the proxy's signature identifies the instance."""

from __future__ import annotations

from starlette.responses import PlainTextResponse, Response

from novalite.api.faults import HTTPFault
from novalite.api.metadata import handlers
from novalite.api.profile import ApiProfile


def _fault(error: HTTPFault, request_id: str) -> Response:
    return PlainTextResponse(error.message, status_code=error.code)


PROFILE = ApiProfile(mount="/metadata", fault=_fault)

ROUTES = [
    ("/", "GET", handlers.root, False),
    ("/openstack", "GET", handlers.openstack_versions, False),
    ("/openstack/", "GET", handlers.openstack_versions, False),
    ("/openstack/{version}", "GET", handlers.openstack_files, False),
    ("/openstack/{version}/", "GET", handlers.openstack_files, False),
    ("/openstack/{version}/{name}", "GET", handlers.openstack_file, False),
    ("/openstack/{version}/password", "POST", handlers.post_password, False),
    ("/{version}", "GET", handlers.ec2_index, False),
    ("/{version}/", "GET", handlers.ec2_index, False),
    ("/{version}/user-data", "GET", handlers.ec2_user_data, False),
    ("/{version}/meta-data", "GET", handlers.ec2_meta_data, False),
    ("/{version}/meta-data/", "GET", handlers.ec2_meta_data, False),
    ("/{version}/meta-data/{path:path}", "GET", handlers.ec2_meta_data, False),
]
