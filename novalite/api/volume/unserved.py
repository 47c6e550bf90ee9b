"""Cinder's v3 collections that novalite does not serve: 501 notImplemented naming the API,
so a client learns the cloud lacks it rather than guessing from a 404."""

from __future__ import annotations

import logging

from novalite.api.faults import HTTPFault
from novalite.api.request import ApiRequest, ApiResponse, Handler

LOG = logging.getLogger("novalite.api")

# path under /v3 -> the API's name, as Cinder's api-ref calls it
CINDER_APIS = {
    "backups": "backups",
    "os-quota-class-sets": "quota class sets",
    "groups": "generic volume groups", "group_types": "group types",
    "group_snapshots": "group snapshots", "consistencygroups": "consistency groups",
    "cgsnapshots": "consistency group snapshots", "qos-specs": "QoS specifications",
    "os-services": "services", "os-hosts": "hosts", "os-availability-zone":
    "availability zones",
    "capabilities": "capabilities", "manageable_volumes": "volume manage extension",
    "manageable_snapshots": "snapshot manage extension", "os-volume-manage":
    "volume manage extension", "os-snapshot-manage": "snapshot manage extension",
    "os-volume-transfer": "volume transfers", "volume-transfers": "volume transfers",
    "workers": "workers", "clusters": "clusters", "resource_filters": "resource filters",
    "default-types": "default volume types", "extensions": "API extensions",
    "os-backup-export": "backup export",
}
METHODS = ("GET", "POST", "PUT", "DELETE")


def _answer(api: str) -> Handler:
    def handler(req: ApiRequest) -> ApiResponse:
        LOG.warning("Not implemented by novalite: the block storage %s API", api)
        raise HTTPFault(501, f"The {api} API is not implemented by novalite.")

    return handler


def routes(served: set[tuple[str, str]]) -> list[tuple[str, str, Handler]]:
    """(path under /v3, method, handler) for each Cinder path and its subpaths that the
    route table does not serve."""
    return [(path, method, _answer(api))
            for collection, api in CINDER_APIS.items()
            for path in (f"/{collection}", f"/{collection}/{{rest:path}}")
            for method in METHODS if (path, method) not in served]
