"""Server views at 2.1, and the API status derived from vm_state and task_state."""

from __future__ import annotations

import dataclasses
import hashlib
from typing import Any

from novalite.api.compute.views import bookmark, image_properties, isotime, links
from novalite.objects import states
from novalite.objects.request_spec import RequestSpec

# vm_state -> status, with task_state overrides (Nova's _STATE_MAP).
_STATUS: dict[str, dict[str | None, str]] = {
    states.ACTIVE: {"default": "ACTIVE",
                    **dict.fromkeys(states.SOFT_REBOOT_STATES, "REBOOT"),
                    **dict.fromkeys(states.HARD_REBOOT_STATES, "HARD_REBOOT"),
                    **dict.fromkeys(states.RESIZE_TASKS, "RESIZE"),
                    **dict.fromkeys(states.REBUILD_TASKS, "REBUILD"),
                    states.MIGRATING: "MIGRATING",
                    states.RESIZE_REVERTING: "REVERT_RESIZE",
                    states.UPDATING_PASSWORD: "PASSWORD"},
    states.BUILDING: {"default": "BUILD"},
    states.STOPPED: {"default": "SHUTOFF", **dict.fromkeys(states.RESIZE_TASKS, "RESIZE"),
                     **dict.fromkeys(states.REBUILD_TASKS, "REBUILD"),
                     states.RESIZE_REVERTING: "REVERT_RESIZE"},
    states.RESIZED: {"default": "VERIFY_RESIZE", states.RESIZE_REVERTING: "REVERT_RESIZE"},
    states.PAUSED: {"default": "PAUSED", states.MIGRATING: "MIGRATING"},
    states.SUSPENDED: {"default": "SUSPENDED"},
    states.RESCUED: {"default": "RESCUE"},
    states.ERROR: {"default": "ERROR", **dict.fromkeys(states.REBUILD_TASKS, "REBUILD")},
    states.DELETED: {"default": "DELETED"},
    states.SOFT_DELETED: {"default": "SOFT_DELETED"},
    states.SHELVED: {"default": "SHELVED"},
    states.SHELVED_OFFLOADED: {"default": "SHELVED_OFFLOADED"},
}
_PROGRESS_STATUSES = {"ACTIVE", "BUILD", "REBUILD", "RESIZE", "VERIFY_RESIZE", "MIGRATING"}


def vm_states_for_status(status_filter: str) -> list[str]:
    """The vm_states a `?status=` filter selects (none for an unknown status, as Nova)."""
    wanted = status_filter.upper()
    return [vm for vm, by_task in _STATUS.items() if by_task["default"] == wanted]


def status(vm_state: str | None, task_state: str | None) -> str:
    by_task = _STATUS.get(vm_state or "", {"default": "UNKNOWN"})
    return by_task.get(task_state, by_task["default"])


def host_id(project_id: str | None, host: str | None) -> str:
    """Hides the host name while letting a project see which servers share a host."""
    if not host:
        return ""
    return hashlib.sha224(f"{project_id}{host}".encode()).hexdigest()


def instance_name(row_id: int) -> str:
    """Nova's default instance_name_template, the name the hypervisor knows."""
    return f"instance-{row_id:08x}"


def addresses(network_info: list[dict[str, Any]], extended: bool = True
              ) -> dict[str, list[dict[str, Any]]]:
    """Nova's `addresses`, from the cached network info: per network label, its fixed
    addresses then its floating ones; `extended` (the server view's, not /ips') adds
    each one's type and its port's MAC."""
    fixed: dict[str, list[dict[str, Any]]] = {}
    floating: dict[str, list[dict[str, Any]]] = {}
    for vif in network_info:
        network = vif["network"]
        label, mac = network["label"], vif["address"]
        on_label = fixed.setdefault(label, [])
        for subnet in network["subnets"]:
            for ip in subnet["ips"]:
                on_label.append(_address(ip, mac, extended))
                if ip.get("floating_ips"):
                    floating.setdefault(label, []).extend(
                        _address(f, mac, extended) for f in ip["floating_ips"])
    if floating:
        return {label: entries + floating.get(label, []) for label, entries in fixed.items()}
    return fixed


def _address(ip: dict[str, Any], mac: str, extended: bool) -> dict[str, Any]:
    if extended:
        return {"version": ip["version"], "addr": ip["address"],
                "OS-EXT-IPS:type": ip["type"], "OS-EXT-IPS-MAC:mac_addr": mac}
    return {"version": ip["version"], "addr": ip["address"]}


def basic(inst: dict[str, Any], base_url: str) -> dict:
    return {"id": inst["uuid"], "name": inst["display_name"],
            "links": links(base_url, "servers", inst["uuid"])}


@dataclasses.dataclass
class ViewOptions:
    """What the caller may see and at which microversion, fixed once per request."""

    base_url: str
    version: tuple[int, int] = (2, 1)
    is_admin: bool = False
    host_statuses: dict[str, str] = dataclasses.field(default_factory=dict)
    server_groups: list[str] | None = None  # shown from 2.71, on a single server only
    # The extension attributes (OS-EXT-*, OS-SRV-USG, key_name, ...): an update's answer
    # leaves them out before 2.75.
    extensions: bool = True
    # What each server was asked with (its zone, hints, image), shown from 2.96.
    specs: dict[str, RequestSpec] = dataclasses.field(default_factory=dict)

    def at_least(self, major: int, minor: int) -> bool:
        return self.version >= (major, minor)


def _flavor(inst: dict[str, Any], opts: ViewOptions) -> dict:
    flavor = (inst.get("flavor") or {}).get("cur") or {}
    if not opts.at_least(2, 47):
        flavor_id = flavor.get("flavorid")
        return {"id": flavor_id,
                "links": [bookmark(opts.base_url, "flavors", str(flavor_id))]}
    # From 2.47 the server embeds the flavor it was built with, as it was then.
    return {"vcpus": flavor.get("vcpus"), "ram": flavor.get("memory_mb"),
            "disk": flavor.get("root_gb"), "ephemeral": flavor.get("ephemeral_gb") or 0,
            "swap": flavor.get("swap") or 0, "original_name": flavor.get("name"),
            "extra_specs": dict(flavor.get("extra_specs") or {})}


def _image(inst: dict[str, Any], opts: ViewOptions) -> dict | str:
    if not inst["image_ref"]:
        return ""
    image: dict[str, Any] = {"id": inst["image_ref"],
                             "links": [bookmark(opts.base_url, "images", inst["image_ref"])]}
    if opts.at_least(2, 98):
        spec = opts.specs.get(inst["uuid"])
        image["properties"] = image_properties.standard(
            spec.image.properties if spec and spec.image else {})
    return image


def _asked(inst: dict[str, Any], opts: ViewOptions) -> dict:
    """2.96 the zone the server is pinned to (the one it was created in, if any) and
    2.100 its scheduler hints: what the next move will ask the scheduler again."""
    spec = opts.specs.get(inst["uuid"])
    asked: dict[str, Any] = {}
    if opts.at_least(2, 96):
        asked["pinned_availability_zone"] = spec.availability_zone if spec else None
    if opts.at_least(2, 100):
        asked["scheduler_hints"] = dict(spec.scheduler_hints) if spec else {}
    return asked


def _admin_attributes(inst: dict[str, Any], opts: ViewOptions) -> dict:
    attrs = {"OS-EXT-SRV-ATTR:host": inst["host"],
             "OS-EXT-SRV-ATTR:hypervisor_hostname": inst["node"],
             "OS-EXT-SRV-ATTR:instance_name": instance_name(inst["id"])}
    if opts.at_least(2, 3):
        attrs.update({"OS-EXT-SRV-ATTR:reservation_id": inst.get("reservation_id"),
                      "OS-EXT-SRV-ATTR:launch_index": inst.get("launch_index"),
                      "OS-EXT-SRV-ATTR:hostname": inst.get("hostname"),
                      "OS-EXT-SRV-ATTR:kernel_id": "",
                      "OS-EXT-SRV-ATTR:ramdisk_id": "",
                      "OS-EXT-SRV-ATTR:root_device_name": None,
                      "OS-EXT-SRV-ATTR:user_data": inst.get("user_data")})
    return attrs


def detail(inst: dict[str, Any], opts: ViewOptions, fault: dict | None = None) -> dict:
    server_status = status(inst["vm_state"], inst["task_state"])
    view = {
        **basic(inst, opts.base_url),
        "status": server_status,
        "tenant_id": inst["project_id"],
        "user_id": inst["user_id"],
        "metadata": inst["metadata"],
        "hostId": host_id(inst["project_id"], inst["host"]),
        "image": _image(inst, opts),
        "flavor": _flavor(inst, opts),
        "created": isotime(inst["created_at"]),
        "updated": isotime(inst["updated_at"] or inst["created_at"]),
        "addresses": addresses(inst.get("network_info") or []),
        "accessIPv4": inst["access_ip_v4"] or "",
        "accessIPv6": inst["access_ip_v6"] or "",
        "OS-DCF:diskConfig": "MANUAL",
    }
    if opts.extensions or opts.at_least(2, 75):
        view.update(_extension_attributes(inst, opts))
    groups = {g: None for vif in inst.get("network_info") or []
              for g in (vif.get("meta") or {}).get("security_groups", [])}
    if groups:
        view["security_groups"] = [{"name": g} for g in groups]
    if server_status in _PROGRESS_STATUSES:
        view["progress"] = inst["progress"] or 0
    if opts.at_least(2, 9):
        view["locked"] = bool(inst.get("locked"))
    if opts.at_least(2, 19):
        view["description"] = inst.get("display_description")
    if opts.at_least(2, 26):
        view["tags"] = list(inst.get("tags") or [])
    if opts.at_least(2, 63):
        view["trusted_image_certificates"] = None
    if opts.at_least(2, 71) and opts.server_groups is not None:
        view["server_groups"] = opts.server_groups
    if opts.at_least(2, 73):
        view["locked_reason"] = (inst.get("system_metadata") or {}).get("locked_reason")
    if opts.at_least(2, 90) and "OS-EXT-SRV-ATTR:hostname" not in view:
        view["OS-EXT-SRV-ATTR:hostname"] = inst.get("hostname")  # for everyone from 2.90
    view.update(_asked(inst, opts))
    if fault and server_status in ("ERROR", "DELETED"):
        view["fault"] = {"code": fault["code"], "message": fault["message"],
                         "created": isotime(fault["created"])}
        if opts.is_admin or fault["code"] != 500:
            view["fault"]["details"] = fault["details"] or ""
    return view


def _volumes_attached(inst: dict[str, Any], opts: ViewOptions) -> list[dict[str, Any]]:
    """The server's volumes (its block device mappings'), with delete_on_termination
    from 2.3, as Nova's."""
    return [{"id": volume_id, "delete_on_termination": delete}
            if opts.at_least(2, 3) else {"id": volume_id}
            for volume_id, delete in inst.get("volumes_attached", [])]


def _extension_attributes(inst: dict[str, Any], opts: ViewOptions) -> dict:
    view = {
        "OS-EXT-AZ:availability_zone": inst["availability_zone"] or "",
        "config_drive": inst["config_drive"] or "",
        "key_name": inst["key_name"],
        "OS-SRV-USG:launched_at": isotime(inst["launched_at"]),
        "OS-SRV-USG:terminated_at": isotime(inst["terminated_at"]),
        "OS-EXT-STS:task_state": inst["task_state"],
        "OS-EXT-STS:vm_state": inst["vm_state"],
        "OS-EXT-STS:power_state": inst["power_state"],
        "os-extended-volumes:volumes_attached": _volumes_attached(inst, opts),
    }
    if opts.is_admin:
        view.update(_admin_attributes(inst, opts))
    if opts.at_least(2, 16) and opts.is_admin:
        view["host_status"] = opts.host_statuses.get(inst["host"], "") if inst["host"] else ""
    return view
