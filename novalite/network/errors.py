"""The network service's errors, with Neutron's class names (the `type` of the
`NeutronError` body clients read), messages and status codes."""

from __future__ import annotations

from typing import Any

from novalite.exception import NovaliteException


class NetworkError(NovaliteException):
    code = 400
    safe = True

    def __init__(self, message: str | None = None, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.error_code = type(self).__name__


class BadRequest(NetworkError):
    msg_fmt = "Bad %(resource)s request: %(msg)s."


class InvalidInput(NetworkError):
    msg_fmt = "Invalid input for operation: %(error_message)s."


class NotFound(NetworkError):
    code = 404
    msg_fmt = "%(resource)s %(id)s could not be found."


class NetworkNotFound(NotFound):
    msg_fmt = "Network %(net_id)s could not be found."


class SubnetNotFound(NotFound):
    msg_fmt = "Subnet %(subnet_id)s could not be found."


class SubnetPoolNotFound(NotFound):
    msg_fmt = "Subnet pool %(subnetpool_id)s could not be found."


class PortNotFound(NotFound):
    msg_fmt = "Port %(port_id)s could not be found."


class SecurityGroupNotFound(NotFound):
    msg_fmt = "Security group %(id)s does not exist"


class SecurityGroupRuleNotFound(NotFound):
    msg_fmt = "Security group rule %(id)s does not exist"


class RouterNotFound(NotFound):
    msg_fmt = "Router %(router_id)s could not be found"


class FloatingIPNotFound(NotFound):
    msg_fmt = "Floating IP %(floatingip_id)s could not be found"


class ExternalGatewayForFloatingIPNotFound(NotFound):
    msg_fmt = ("External network %(external_network_id)s is not reachable from subnet "
               "%(subnet_id)s.  Therefore, cannot associate Port %(port_id)s with a "
               "Floating IP.")


class RouterInterfaceNotFoundForSubnet(NotFound):
    msg_fmt = "Router %(router_id)s has no interface on subnet %(subnet_id)s"


class RouterInterfaceNotFound(NotFound):
    msg_fmt = "Router %(router_id)s does not have an interface with id %(port_id)s"


class AvailabilityZoneNotFound(NotFound):
    msg_fmt = "AvailabilityZone %(availability_zone)s could not be found."


class Conflict(NetworkError):
    code = 409
    msg_fmt = "%(msg)s"


class NetworkInUse(Conflict):
    msg_fmt = ("Unable to complete operation on network %(net_id)s. There are one or more "
               "ports still in use on the network.")


class InvalidSharedSetting(Conflict):
    msg_fmt = ("Unable to reconfigure sharing settings for network %(network)s. Multiple "
               "tenants are using it.")


class ExternalNetworkInUse(Conflict):
    msg_fmt = ("External network %(net_id)s cannot be updated to be made non-external, "
               "since it has existing gateway ports.")


class SubnetInUse(Conflict):
    msg_fmt = ("Unable to complete operation on subnet %(subnet_id)s: One or more ports "
               "have an IP allocation from this subnet.")


class PortInUse(Conflict):
    msg_fmt = ("Unable to complete operation on port %(port_id)s for network %(net_id)s. "
               "Port already has an attached device %(device_id)s.")


class IpAddressInUse(Conflict):
    msg_fmt = ("Unable to complete operation for network %(net_id)s. The IP address "
               "%(ip_address)s is in use.")


class IpAddressAlreadyAllocated(Conflict):
    msg_fmt = "IP address %(ip)s already allocated in subnet %(subnet_id)s"


class IpAddressGenerationFailure(Conflict):
    msg_fmt = "No more IP addresses available on network %(net_id)s."


class IpAddressGenerationFailureNoMatchingSubnet(IpAddressGenerationFailure):
    msg_fmt = ("No valid service subnet for the given device owner, network "
               "%(network_id)s, service type %(service_type)s.")


class InvalidSubnetServiceType(InvalidInput):
    msg_fmt = "Subnet service type %(service_type)s does not correspond to a valid device " \
              "owner."


class InvalidInputSubnetServiceType(InvalidInput):
    msg_fmt = "Subnet service type %(service_type)s is not a string."


class PortSecurityAndIPRequiredForSecurityGroups(InvalidInput):
    msg_fmt = ("Port security must be enabled and port must have an IP address in order "
               "to use security groups.")


class PortSecurityPortHasSecurityGroup(Conflict):
    msg_fmt = ("Port has security group associated. Cannot disable port security or IP "
               "address until security group is removed.")


class AddressPairAndPortSecurityRequired(Conflict):
    msg_fmt = ("Port Security must be enabled in order to have allowed address pairs on "
               "a port.")


class MacAddressInUse(Conflict):
    msg_fmt = ("Unable to complete operation for network %(net_id)s. The mac address "
               "%(mac)s is in use.")


class MacAddressGenerationFailure(Conflict):
    code = 503
    msg_fmt = "Unable to generate unique mac on network %(net_id)s."


class NoNetworkAvailable(Conflict):
    code = 503
    msg_fmt = "Unable to create the network. No tenant network is available for allocation."


class VlanIdInUse(Conflict):
    msg_fmt = ("Unable to create the network. The VLAN %(vlan_id)s on physical network "
               "%(physical_network)s is in use.")


class TunnelIdInUse(Conflict):
    msg_fmt = "Unable to create the network. The tunnel ID %(tunnel_id)s is in use."


class FlatNetworkInUse(Conflict):
    msg_fmt = ("Unable to create the flat network. Physical network %(physical_network)s "
               "is in use.")


class NetworkMTUSubnetConflict(Conflict):
    msg_fmt = "MTU of %(net_id)s is not valid, subnet requires a minimum of %(mtu)s"


class OverlappingCidr(NetworkError):
    msg_fmt = ("Invalid input for cidr. Reason: Requested subnet with cidr: %(new)s for "
               "network: %(net_id)s overlaps with another subnet.")


class InvalidIpForSubnet(NetworkError):
    msg_fmt = "IP address %(ip_address)s is not a valid IP for the specified subnet."


class InvalidIpForNetwork(NetworkError):
    msg_fmt = "IP address %(ip_address)s is not a valid IP for any of the subnets on the " \
              "specified network."


class OverQuota(Conflict):
    msg_fmt = "Quota exceeded for resources: %(overs)s."


class SecurityGroupInUse(Conflict):
    msg_fmt = "Security Group %(id)s %(reason)s."


class SecurityGroupRuleExists(Conflict):
    msg_fmt = "Security group rule already exists. Rule id is %(rule_id)s."


class SecurityGroupCannotRemoveDefault(Conflict):
    msg_fmt = "Insufficient rights for removing default security group."


class RouterInUse(Conflict):
    msg_fmt = "Router %(router_id)s %(reason)s"


class RouterInterfaceInUseByFloatingIP(Conflict):
    msg_fmt = ("Router interface for subnet %(subnet_id)s on router %(router_id)s cannot "
               "be deleted, as it is required by one or more floating IPs.")


class RouterInterfaceExists(BadRequest):
    msg_fmt = ("Router already has a port on subnet %(subnet_id)s")


class FloatingIPPortAlreadyAssociated(Conflict):
    msg_fmt = ("Cannot associate floating IP %(floating_ip_address)s (%(fip_id)s) with "
               "port %(port_id)s using fixed IP %(fixed_ip)s, as that fixed IP already "
               "has a floating IP on external network %(net_id)s.")


class GatewayConflictWithAllocationPools(Conflict):
    msg_fmt = "Gateway ip %(ip_address)s conflicts with allocation pool %(pool)s."


class NetworkNotExternal(NetworkError):
    msg_fmt = "Network %(net_id)s is not an external network"


class RevisionNumberConstraintFailed(NetworkError):
    code = 412
    msg_fmt = "Constrained to %(constraint)s, but current revision is %(current)s"


class PolicyNotAuthorized(NetworkError):
    code = 403
    msg_fmt = "(rule:%(action)s) is disallowed by policy"
