"""The compute API's side of os-interface attach and detach (Nova's compute.api.API
attach_interface and detach_interface): Nova's checks of the instance in its order
(lock, then vm and task state), the port made or claimed in the user's name, the action
recorded, and the work handed to the instance's compute (novalite.compute.
interface_steps): an attach is a call, so the answer shows a port the guest has, and a
port the compute could not plug is given back here; a detach is a cast, as Nova's.
A compute too old to take either is refused with a 409 before anything changed."""

from __future__ import annotations

from typing import Any

from novalite import exception
from novalite.compute import guards, neutron
from novalite.compute import rpcapi as compute_rpcapi
from novalite.context import RequestContext
from novalite.db.api import actions
from novalite.objects import states
from novalite.objects.instance import Instance

RPC_VERSION = "1.26"


class InterfaceAttachNotAvailable(exception.Conflict):
    msg_fmt = ("Interface attachments are not available until the compute services are "
               "upgraded ([upgrade_levels] compute caps their RPC API below them).")


class InterfaceAttachAPI:
    def __init__(self) -> None:
        self.compute = compute_rpcapi.ComputeAPI()

    def _checked(self, ctx: RequestContext, instance: Instance, action: str) -> str:
        if not self.compute.client.can_send_version(RPC_VERSION):
            raise InterfaceAttachNotAvailable()
        guards.check_lock(ctx, instance)
        guards.check_state(instance, action, states.ALLOW_ATTACH_INTERFACE)
        return guards.check_host(instance)

    def attach(self, ctx: RequestContext, instance: Instance,
               request: neutron.NetworkRequest) -> dict[str, Any]:
        """The port as the network service shows it once the guest has it."""
        host = self._checked(ctx, instance, "attach_interface")
        networking = neutron.ServerNetworking(ctx, instance.uuid)
        port, brought = networking.attach(request)
        try:
            actions.action_start(ctx, instance.uuid, "attach_interface")
            self.compute.attach_interface(ctx, host, instance, port["id"], request.tag,
                                          brought)
        except BaseException:
            neutron.API().deallocate_port(ctx, port["id"], brought)
            raise
        return networking.client.show(neutron.PORTS, "port", port["id"])

    def detach(self, ctx: RequestContext, instance: Instance, port_id: str) -> None:
        host = self._checked(ctx, instance, "detach_interface")
        neutron.ServerNetworking(ctx, instance.uuid).check_attached(port_id)
        actions.action_start(ctx, instance.uuid, "detach_interface")
        self.compute.detach_interface(ctx, host, instance, port_id)
