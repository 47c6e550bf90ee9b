"""Nova's networking errors, with its messages and the codes its API answers them with,
raised by the compute side of the network service (novalite.compute.neutron)."""

from __future__ import annotations

from novalite.exception import Conflict, Forbidden, Invalid, NotFound


class NetworkNotFound(Invalid):
    msg_fmt = "Network %(network_id)s could not be found."


class PortNotFound(Invalid):
    msg_fmt = "Port id %(port_id)s could not be found."


class PortInUse(Conflict):
    msg_fmt = "Port %(port_id)s is still in use."


class FixedIpAlreadyInUse(Invalid):
    msg_fmt = "Fixed IP address %(address)s is already in use on instance %(instance_uuid)s."


class NoMoreFixedIps(Invalid):
    msg_fmt = "No fixed IP addresses available for network: %(net)s"


class MultipleInstancesNotApplicable(Invalid):
    msg_fmt = "Failed to launch instances: %(reason)s"


class ExternalNetworkAttachForbidden(Forbidden):
    msg_fmt = "It is not allowed to create an interface on external network %(network_uuid)s"


class NetworkAmbiguous(Conflict):
    msg_fmt = ("More than one possible network found. Specify network ID(s) to select "
               "which one(s) to connect to.")


class UnableToAutoAllocateNetwork(Invalid):
    msg_fmt = "Unable to automatically allocate a network for project %(project_id)s"


class PortLimitExceeded(Forbidden):
    msg_fmt = "Maximum number of ports exceeded"


class SecurityGroupNotFound(Invalid):
    msg_fmt = "Security group %(security_group_id)s not found."


class NoUniqueMatch(Conflict):
    """A security group name its project uses more than once; raised with the text of
    the lookup that found them (a create's and an action's differ, as in Nova)."""
    msg_fmt = "No Unique Match Found."


class NetworkRequiresSubnet(Invalid):
    msg_fmt = "Network %(network_uuid)s requires a subnet in order to boot instances on."


class PortRequiresFixedIP(Invalid):
    msg_fmt = "Port %(port_id)s requires a FixedIP in order to be used."


class NetworkRequestInvalid(Invalid):
    msg_fmt = "Invalid input received: %(reason)s"


class FloatingIpNotFoundForAddress(NotFound):
    msg_fmt = "Floating IP not found for address %(address)s."


class InterfaceNotFound(NotFound):
    msg_fmt = "Network interface %(port_id)s could not be found for instance %(instance)s."


class NetworkServiceError(Conflict):
    msg_fmt = "%(reason)s"


class NetworkNotFoundForInstance(Invalid):
    msg_fmt = "Network could not be found for instance %(instance_id)s."


class FixedIpNotFoundForSpecificInstance(Invalid):
    msg_fmt = "Instance %(instance_uuid)s doesn't have fixed IP '%(ip)s'."


class InstanceHasNoPorts(NotFound):
    """Nova's SecurityGroupNotFound for a server without ports (its text)."""
    msg_fmt = "instance_id %(instance_uuid)s could not be found as device id on any ports"


class FloatingIpNotAssociated(Conflict):
    msg_fmt = "Floating IP %(address)s is not associated with instance %(id)s."


class FloatingIpNotFound(NotFound):
    msg_fmt = "Floating IP not found for ID %(id)s"


class FloatingIpMultipleFoundForAddress(Conflict):
    msg_fmt = "Multiple floating IPs are found for address %(address)s."


class FloatingIpPoolNotFound(NotFound):
    msg_fmt = "Floating IP pool not found."


class FloatingIpPoolAmbiguous(Conflict):
    """Nova answers this one 500; a 409 says the same without blaming the cloud."""
    msg_fmt = "Multiple floating IP pools matches found for name '%(name)s'"


class NoMoreFloatingIps(NotFound):
    msg_fmt = "No more floating IPs available."


class FloatingIpLimitExceeded(Forbidden):
    msg_fmt = "IP allocation over quota."


class FloatingIpRefused(Invalid):
    """The network service's 400 on a floating IP (Nova's FloatingIpBadRequest and
    FloatingIpAssociateFailed), in its own words."""
    msg_fmt = "%(reason)s"


class FloatingIpAssociationFailed(Invalid):
    msg_fmt = ("Unable to associate floating IP %(address)s to fixed IP %(fixed_address)s "
               "for instance %(id)s. Error: %(error)s")


class SecurityGroupNotFoundForProject(NotFound):
    """Nova's SecurityGroupNotFound of add_to_instance/remove_from_instance (its text)."""
    msg_fmt = "Security group %(name)s is not found for project %(project)s"


class SecurityGroupExistsForInstance(Invalid):
    msg_fmt = "Security group %(name)s is already associated with the instance %(instance)s"


class SecurityGroupNotExistsForInstance(Invalid):
    msg_fmt = "Security group %(name)s is not associated with the instance %(instance)s"
