"""Each resource's attributes as Neutron's attribute map declares them: which a POST or a
PUT may carry and of what type. A body naming another attribute, or one it may not set,
is refused with Neutron's 400 rather than ignored."""

from __future__ import annotations

import dataclasses
import ipaddress
import uuid
from collections.abc import Callable
from typing import Any

from novalite.api.faults import HTTPFault
from novalite.network import errors


def _bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "false", "1", "0"):
        return value.lower() in ("true", "1")
    raise ValueError(f"'{value}' cannot be converted to boolean")


def _str(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError(f"'{value}' is not a valid string")
    if len(value) > 255:
        raise ValueError(f"'{value[:20]}...' exceeds maximum length of 255")
    return value


def _int(value: Any) -> int:
    if isinstance(value, bool):
        raise ValueError(f"'{value}' is not an integer")
    try:
        return int(value)
    except (TypeError, ValueError):
        raise ValueError(f"'{value}' is not an integer") from None


def _non_negative(value: Any) -> int:
    number = _int(value)
    if number < 0:
        raise ValueError(f"'{value}' should be non-negative")
    return number


def _ip_version(value: Any) -> int:
    """An integer of [4, 6], as neutron-lib's validate_values checks it: its message
    names no values."""
    number = _int(value)
    if number not in (4, 6):
        raise ValueError(f"{number} is not in valid_values")
    return number


def _list(value: Any) -> list:
    if not isinstance(value, list):
        raise ValueError(f"'{value}' is not a list")
    return value


def _dict(value: Any) -> dict:
    if not isinstance(value, dict):
        raise ValueError(f"'{value}' is not a dictionary")
    return value


def _uuid(value: Any) -> str:
    try:
        uuid.UUID(str(value))
    except ValueError:
        raise ValueError(f"'{value}' is not a valid UUID") from None
    return str(value)


def _tags(value: Any) -> list:
    return [_str(t) for t in _list(value)]


def _ip(value: Any) -> str:
    """neutron-lib's validate_ip_address: an address as written canonically; an IPv4 one
    with leading zeros is refused with the form to write."""
    invalid = ValueError(f"'{value}' is not a valid IP address")
    if not isinstance(value, str) or (":" not in value and value.count(".") != 3):
        raise invalid
    try:
        ip: ipaddress.IPv4Address | ipaddress.IPv6Address = ipaddress.ip_address(value)
    except ValueError:
        octets = value.split(".")
        if not all(octet.isascii() and octet.isdigit() and int(octet) < 256
                   for octet in octets):
            raise invalid from None
        ip = ipaddress.IPv4Address(".".join(str(int(octet)) for octet in octets))
    if "%" in value:  # a scoped IPv6 address
        raise invalid
    if ip.version == 4 and str(ip) != value:
        raise ValueError(f"'{value}' is not an accepted IP address, '{ip}' is recommended")
    return value


def _fixed_ips(value: Any) -> list:
    """neutron-lib's validate_fixed_ips: entries naming a subnet and/or an address, no
    address twice (a subnet may be named twice: two addresses of it)."""
    if not isinstance(value, list):
        raise ValueError(f"Invalid data format for fixed IP: '{value}'")
    addresses = []
    for entry in value:
        if not isinstance(entry, dict) or set(entry) - {"subnet_id", "ip_address"}:
            raise ValueError(f"Invalid data format for fixed IP: '{entry}'")
        if "ip_address" in entry:
            if entry["ip_address"] in addresses:
                raise ValueError(f"Duplicate IP address '{entry['ip_address']}'")
            addresses.append(_ip(entry["ip_address"]))
        if "subnet_id" in entry:
            _uuid(entry["subnet_id"])
    return value


def _cidr(value: Any) -> str:
    try:
        net = ipaddress.ip_network(value, strict=False)
    except (TypeError, ValueError):
        raise ValueError(f"'{value}' is not a valid IP subnet") from None
    if "/" not in str(value) or (net.version == 4 and str(net) != value):
        raise ValueError(f"'{value}' isn't a recognized IP subnet cidr, '{net}' is "
                         "recommended")
    return str(value)


def _nameservers(value: Any) -> list:
    """neutron-lib's validate_nameservers: addresses, each once."""
    seen: list[str] = []
    for host in _list(value):
        try:
            _ip(host)
        except ValueError as exc:
            raise ValueError(f"'{host}' is not a valid nameserver. {exc}") from None
        if host in seen:
            raise ValueError(f"Duplicate nameserver '{host}'")
        seen.append(host)
    return seen


def _hostroutes(value: Any) -> list:
    """neutron-lib's validate_hostroutes (subnets' host_routes, routers' routes)."""
    seen: list[dict] = []
    for route in _list(value):
        if not isinstance(route, dict) or set(route) != {"destination", "nexthop"}:
            provided = sorted(route) if isinstance(route, dict) else route
            raise ValueError("Validation of dictionary's keys failed. Expected keys: "
                             f"['destination', 'nexthop'] Provided keys: {provided}")
        _cidr(route["destination"])
        _ip(route["nexthop"])
        if route in seen:
            raise ValueError(f"Duplicate hostroute '{route}'")
        seen.append(route)
    return seen


def nullable(convert: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda value: None if value is None else convert(value)


TYPES = {"bool": _bool, "str": _str, "int": _int, "non_negative": _non_negative,
         "ip_version": _ip_version, "list": _list, "dict": _dict,
         "uuid": _uuid, "tags": _tags, "nameservers": _nameservers,
         "hostroutes": _hostroutes, "fixed_ips": _fixed_ips}


@dataclasses.dataclass(frozen=True)
class Attr:
    convert: Callable[[Any], Any]
    post: bool = True
    put: bool = True
    required: bool = False  # in a POST
    kind: str = ""  # the TYPES entry it converts with


def _a(kind: str, post: bool = True, put: bool = True, null: bool = False,
       required: bool = False) -> Attr:
    convert = TYPES[kind]
    return Attr(nullable(convert) if null else convert, post, put, required, kind)


# a list filter's value converts as its attribute's, when that is a boolean or a number
FILTER_CONVERTERS: dict[str, Callable[[Any], Any]] = {"bool": _bool, "int": _int,
                                                      "non_negative": _int,
                                                      "ip_version": _int}


def filter_value(resource: str, key: str, value: str) -> str:
    """A list filter's value as the attribute's type reads it (`admin_state_up=True` is
    `true`), or Neutron's 400 for one it cannot read."""
    attr = SPECS.get(resource, {}).get(key)
    if attr is None or attr.kind not in FILTER_CONVERTERS or value == "":
        return value.lower() if value in ("True", "False") else value  # shown, not set
    try:
        converted = FILTER_CONVERTERS[attr.kind](value)
    except ValueError as exc:
        raise errors.InvalidInput(error_message=str(exc)) from None
    return str(converted).lower() if isinstance(converted, bool) else str(converted)


_COMMON = {"name": _a("str"), "description": _a("str"), "tenant_id": _a("str", put=False),
           "project_id": _a("str", put=False), "tags": _a("tags", put=False)}

SPECS: dict[str, dict[str, Attr]] = {
    "network": {**_COMMON, "admin_state_up": _a("bool"), "shared": _a("bool"),
                "router:external": _a("bool"), "mtu": _a("non_negative"),
                "port_security_enabled": _a("bool"), "is_default": _a("bool"),
                "availability_zone_hints": _a("list", put=False), "dns_domain": _a("str"),
                "provider:network_type": _a("str", put=False),
                "provider:physical_network": _a("str", put=False, null=True),
                "provider:segmentation_id": _a("int", put=False, null=True),
                "qos_policy_id": _a("str", null=True)},
    "subnet": {**_COMMON, "network_id": _a("uuid", put=False, required=True),
               "ip_version": _a("ip_version", put=False), "cidr": _a("str", put=False),
               "gateway_ip": _a("str", null=True), "enable_dhcp": _a("bool"),
               "allocation_pools": _a("list"), "dns_nameservers": _a("nameservers"),
               "host_routes": _a("hostroutes"), "service_types": _a("list"),
               "ipv6_ra_mode": _a("str", put=False, null=True),
               "ipv6_address_mode": _a("str", put=False, null=True),
               "subnetpool_id": _a("str", put=False, null=True),
               "prefixlen": _a("int", put=False), "segment_id": _a("str", null=True),
               "use_default_subnetpool": _a("bool", put=False),
               "dns_publish_fixed_ip": _a("bool")},
    "port": {**_COMMON, "network_id": _a("uuid", put=False, required=True),
             "admin_state_up": _a("bool"),
             "mac_address": _a("str"), "fixed_ips": _a("fixed_ips"), "device_id": _a("str"),
             "device_owner": _a("str"), "security_groups": _a("list"),
             "allowed_address_pairs": _a("list"), "port_security_enabled": _a("bool"),
             "binding:host_id": _a("str"), "binding:profile": _a("dict", null=True),
             "binding:vnic_type": _a("str"), "dns_name": _a("str"),
             "extra_dhcp_opts": _a("list"), "qos_policy_id": _a("str", null=True),
             "propagate_uplink_status": _a("bool")},
    "security_group": {**_COMMON, "stateful": _a("bool")},
    "security_group_rule": {
        "description": _a("str", put=True), "tenant_id": _a("str", put=False),
        "project_id": _a("str", put=False),
        "security_group_id": _a("uuid", put=False, required=True),
        "direction": _a("str", put=False), "ethertype": _a("str", put=False),
        "protocol": Attr(nullable(lambda v: str(v)), put=False),
        "port_range_min": _a("int", put=False, null=True),
        "port_range_max": _a("int", put=False, null=True),
        "remote_ip_prefix": _a("str", put=False, null=True),
        "remote_group_id": _a("uuid", put=False, null=True),
        "remote_address_group_id": _a("str", put=False, null=True)},
    "router": {**_COMMON, "admin_state_up": _a("bool"),
               "external_gateway_info": _a("dict", null=True), "routes": _a("hostroutes"),
               "distributed": _a("bool"), "ha": _a("bool"),
               "availability_zone_hints": _a("list", put=False),
               "flavor_id": _a("str", put=False, null=True)},
    "floatingip": {"description": _a("str"), "tenant_id": _a("str", put=False),
                   "project_id": _a("str", put=False), "tags": _a("tags", put=False),
                   "floating_network_id": _a("uuid", put=False, required=True),
                   "floating_ip_address": _a("str", put=False, null=True),
                   "subnet_id": _a("uuid", put=False, null=True),
                   "port_id": _a("uuid", null=True), "fixed_ip_address": _a("str", null=True),
                   "dns_name": _a("str", put=False), "dns_domain": _a("str", put=False),
                   "qos_policy_id": _a("str", null=True)},
}
# attributes accepted but meaning nothing here yet: refused unless at their default
IGNORED_DEFAULTS: dict[str, Any] = {"qos_policy_id": None, "distributed": False, "ha": False,
                    "extra_dhcp_opts": [], "propagate_uplink_status": False,
                    "segment_id": None, "flavor_id": None, "remote_address_group_id": None,
                    "dns_publish_fixed_ip": False, "dns_name": "", "dns_domain": ""}


def parse(body: Any, resource: str, creating: bool) -> dict[str, Any]:
    """The resource's attributes from `{"<resource>": {...}}`, converted and checked."""
    if not isinstance(body, dict) or not isinstance(body.get(resource), dict):
        raise HTTPFault(400, "Resource body required" if body is None else
                        f"Unable to find '{resource}' in request body")
    spec = SPECS[resource]
    values = {}
    for key, value in body[resource].items():
        attr = spec.get(key)
        if attr is None:
            raise HTTPFault(400, f"Unrecognized attribute(s) '{key}'")
        if not (attr.post if creating else attr.put):
            raise HTTPFault(400, f"Cannot update read-only attribute {key}" if not creating
                            else f"Attribute '{key}' not allowed in POST")
        try:
            values[key] = attr.convert(value)
        except ValueError as exc:
            raise HTTPFault(400, f"Invalid input for {key}. Reason: {exc}.") from None
        if key in IGNORED_DEFAULTS and values[key] not in (IGNORED_DEFAULTS[key],):
            raise HTTPFault(400, f"Invalid input for {key}. Reason: not supported by this "
                                 "cloud.")
    if creating:
        for key, attr in spec.items():
            if attr.required and key not in values:
                raise HTTPFault(400, f"Failed to parse request. Required attribute '{key}' "
                                     "not specified")
    tenant = values.pop("tenant_id", None)
    if tenant is not None:
        values.setdefault("project_id", tenant)
    return values
