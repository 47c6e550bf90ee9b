"""Handlers of /extensions: the v2.1 extension list Nova still serves for old clients.

Extensions stopped meaning anything at v2.1 (microversions replaced them), but clients of
the v2 era still ask which are loaded before using a feature; Nova answers with a fixed
list, and so does novalite, naming only the extensions whose APIs it serves.
"""

from __future__ import annotations

from novalite.api import policy
from novalite.api.faults import HTTPFault
from novalite.api.request import ApiRequest, ApiResponse

RULE = "os_compute_api:extensions"
_NAMESPACE = "http://docs.openstack.org/compute/ext/fake_xml"  # Nova's, for every entry
_UPDATED = "2014-12-03T00:00:00Z"

# (alias, name, description) of the v2 extensions whose APIs novalite serves.
_EXTENSIONS: tuple[tuple[str, str, str], ...] = (
    ("OS-DCF", "DiskConfig", "The disk configuration of servers."),
    ("OS-EXT-AZ", "ExtendedAvailabilityZone", "The availability zone of servers."),
    ("OS-EXT-IPS", "ExtendedIps", "The type of each server address."),
    ("OS-EXT-IPS-MAC", "ExtendedIpsMac", "The MAC address of each server address."),
    ("OS-EXT-SRV-ATTR", "ExtendedServerAttributes", "The host and node of servers."),
    ("OS-EXT-STS", "ExtendedStatus", "The vm, task and power states of servers."),
    ("OS-FLV-DISABLED", "FlavorDisabled", "Whether a flavor is disabled."),
    ("OS-FLV-EXT-DATA", "FlavorExtraData", "The ephemeral disk of flavors."),
    ("OS-SRV-USG", "ServerUsage", "When servers were launched and terminated."),
    ("os-admin-actions", "AdminActions", "Server state reset and network injection."),
    ("os-aggregates", "Aggregates", "Host aggregates."),
    ("os-availability-zone", "AvailabilityZone", "Availability zones."),
    ("os-console-output", "ConsoleOutput", "The console log of servers."),
    ("os-create-server-ext", "Createserverext", "Extended server create."),
    ("os-extended-hypervisors", "ExtendedHypervisors", "Extended hypervisor details."),
    ("os-extended-quotas", "ExtendedQuotas", "Quota deletion and forced updates."),
    ("os-extended-services", "ExtendedServices", "Disabling services with a reason."),
    ("os-extended-services-delete", "ExtendedServicesDelete", "Deleting services."),
    ("os-flavor-access", "FlavorAccess", "Private flavors and the projects they serve."),
    ("os-flavor-extra-specs", "FlavorExtraSpecs", "Extra specs of flavors."),
    ("os-flavor-manage", "FlavorManage", "Creating and deleting flavors."),
    ("os-flavor-rxtx", "FlavorRxtx", "The rxtx factor of flavors."),
    ("os-flavor-swap", "FlavorSwap", "The swap disk of flavors."),
    ("os-hypervisor-status", "HypervisorStatus", "The state and status of hypervisors."),
    ("os-hypervisors", "Hypervisors", "Hypervisors."),
    ("os-instance-actions", "InstanceActions", "The actions taken on servers."),
    ("os-keypairs", "Keypairs", "Keypairs."),
    ("os-lock-server", "LockServer", "Locking servers."),
    ("os-multiple-create", "MultipleCreate", "Creating several servers at once."),
    ("os-pause-server", "PauseServer", "Pausing servers."),
    ("os-quota-class-sets", "QuotaClasses", "Quota classes."),
    ("os-quota-sets", "Quotas", "Quotas."),
    ("os-scheduler-hints", "SchedulerHints", "Scheduler hints on server create."),
    ("os-server-external-events", "ServerExternalEvents", "Events from other services."),
    ("os-server-group-quotas", "ServerGroupQuotas", "Server group quotas."),
    ("os-server-groups", "ServerGroups", "Server groups."),
    ("os-server-list-multi-status", "ServerListMultiStatus", "Lists by several states."),
    ("os-server-sort-keys", "ServerSortKeys", "Sorting server lists."),
    ("os-server-start-stop", "ServerStartStop", "Starting and stopping servers."),
    ("os-services", "Services", "Compute services."),
    ("os-simple-tenant-usage", "SimpleTenantUsage", "Usage reports."),
    ("os-suspend-server", "SuspendServer", "Suspending servers."),
    ("os-used-limits", "UsedLimits", "What projects use of their limits."),
    ("os-user-quotas", "UserQuotas", "Per-user quotas."),
)


def _view(alias: str, name: str, description: str) -> dict:
    return {"alias": alias, "name": name, "description": description,
            "namespace": _NAMESPACE, "updated": _UPDATED, "links": []}


def index(req: ApiRequest) -> ApiResponse:
    policy.authorize(req.ctx, RULE)
    return ApiResponse(200, {"extensions": [_view(*ext) for ext in _EXTENSIONS]})


def show(req: ApiRequest) -> ApiResponse:
    """The extension's alias is its id."""
    policy.authorize(req.ctx, RULE)
    for ext in _EXTENSIONS:
        if ext[0] == req.params["alias"]:
            return ApiResponse(200, {"extension": _view(*ext)})
    raise HTTPFault(404, "The resource could not be found.")
