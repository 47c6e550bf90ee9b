"""Remote consoles on this host (Nova's get_vnc_console, get_serial_console and
validate_console_port), mixed into the compute manager as ConsoleSteps.

The compute only says where a guest's console listens: the API turns that into a token
and a URL (computes never touch the database), and the console proxy asks again, at
connect time, whether the port it was given still belongs to that guest, since a
guest started again (a hard reboot, a move) may listen elsewhere and its old port may
by then be another guest's."""

from __future__ import annotations

from novalite import exception
from novalite.conf import CONF
from novalite.context import RequestContext
from novalite.objects import states
from novalite.objects.console import ConsoleEndpoint
from novalite.objects.instance import Instance
from novalite.virt.driver import ComputeDriver

NOVNC = "novnc"
SERIAL = "serial"


class ConsoleSteps:
    """Mixed into the ComputeManager, whose driver these ask."""

    driver: ComputeDriver

    def get_vnc_console(self, ctx: RequestContext, instance: Instance, console_type: str
                        ) -> ConsoleEndpoint:
        """RPC call (1.28)."""
        if not CONF.vnc.enabled:
            raise exception.ConsoleTypeUnavailable(console_type=console_type)
        if console_type != NOVNC:
            raise exception.ConsoleTypeInvalid(console_type=console_type)
        return self._endpoint(ctx, instance, console_type)

    def get_serial_console(self, ctx: RequestContext, instance: Instance,
                           console_type: str) -> ConsoleEndpoint:
        """RPC call (1.28)."""
        if not CONF.serial_console.enabled:
            raise exception.ConsoleTypeUnavailable(console_type=console_type)
        if console_type != SERIAL:
            raise exception.ConsoleTypeInvalid(console_type=console_type)
        return self._endpoint(ctx, instance, console_type)

    def validate_console_port(self, ctx: RequestContext, instance: Instance, port: int,
                              internal_access_path: str | None, console_type: str
                              ) -> bool:
        """RPC call (1.28): is the guest's console still where its token says?"""
        try:
            endpoint = self._endpoint(ctx, instance, console_type)
        except exception.NovaliteException:
            return False
        return (endpoint.port, endpoint.internal_access_path) == (port, internal_access_path)

    def _endpoint(self, ctx: RequestContext, instance: Instance, console_type: str
                  ) -> ConsoleEndpoint:
        get = self.driver.get_serial_console if console_type == SERIAL \
            else self.driver.get_vnc_console
        try:
            return get(ctx, instance)
        except NotImplementedError:
            raise exception.FeatureNotSupported() from None
        except (exception.InstanceNotFound, exception.ConsoleTypeUnavailable):
            if instance.vm_state != states.BUILDING:
                raise
            raise exception.InstanceNotReady(instance_id=instance.uuid) from None
