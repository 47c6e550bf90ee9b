"""Client of the compute service's RPC API; messages go to one host's server.

Version history:
  1.0: build_and_run_instance, terminate_instance
  1.1: stop_instance, start_instance, reboot_instance
  1.2: pause_instance, unpause_instance, suspend_instance, resume_instance,
       get_console_output
  1.3: set_host_enabled
  1.4: get_host_uptime
"""

from __future__ import annotations

from novalite.context import RequestContext
from novalite.objects.instance import Instance
from novalite.objects.request_spec import FilterProperties, RequestSpec, Selection
from novalite.rpc.rpcapi import make_client

TOPIC = "compute"


class ComputeAPI:
    def __init__(self) -> None:
        self.client = make_client(TOPIC, "1.0")

    def build_and_run_instance(self, ctx: RequestContext, host: str, instance: Instance,
                               request_spec: RequestSpec, filter_properties: FilterProperties,
                               host_list: list[Selection], node: str) -> None:
        self.client.prepare(server=host).cast(
            ctx, "build_and_run_instance", instance=instance, request_spec=request_spec,
            filter_properties=filter_properties, host_list=host_list, node=node)

    def terminate_instance(self, ctx: RequestContext, host: str, instance: Instance) -> None:
        self.client.prepare(server=host).cast(ctx, "terminate_instance", instance=instance)

    def stop_instance(self, ctx: RequestContext, host: str, instance: Instance,
                      clean_shutdown: bool = True) -> None:
        self.client.prepare(server=host, version="1.1").cast(
            ctx, "stop_instance", instance=instance, clean_shutdown=clean_shutdown)

    def start_instance(self, ctx: RequestContext, host: str, instance: Instance) -> None:
        self.client.prepare(server=host, version="1.1").cast(
            ctx, "start_instance", instance=instance)

    def reboot_instance(self, ctx: RequestContext, host: str, instance: Instance,
                        reboot_type: str) -> None:
        self.client.prepare(server=host, version="1.1").cast(
            ctx, "reboot_instance", instance=instance, reboot_type=reboot_type)

    def _cast_1_2(self, ctx: RequestContext, host: str, method: str, instance: Instance
                  ) -> None:
        self.client.prepare(server=host, version="1.2").cast(ctx, method, instance=instance)

    def pause_instance(self, ctx: RequestContext, host: str, instance: Instance) -> None:
        self._cast_1_2(ctx, host, "pause_instance", instance)

    def unpause_instance(self, ctx: RequestContext, host: str, instance: Instance) -> None:
        self._cast_1_2(ctx, host, "unpause_instance", instance)

    def suspend_instance(self, ctx: RequestContext, host: str, instance: Instance) -> None:
        self._cast_1_2(ctx, host, "suspend_instance", instance)

    def resume_instance(self, ctx: RequestContext, host: str, instance: Instance) -> None:
        self._cast_1_2(ctx, host, "resume_instance", instance)

    def get_console_output(self, ctx: RequestContext, host: str, instance: Instance,
                           tail_length: int | None) -> str:
        return self.client.prepare(server=host, version="1.2").call(
            ctx, "get_console_output", instance=instance, tail_length=tail_length)

    def set_host_enabled(self, ctx: RequestContext, host: str, enabled: bool) -> None:
        self.client.prepare(server=host, version="1.3").cast(
            ctx, "set_host_enabled", enabled=enabled)

    def get_host_uptime(self, ctx: RequestContext, host: str) -> str:
        return self.client.prepare(server=host, version="1.4").call(ctx, "get_host_uptime")
