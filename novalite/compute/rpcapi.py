"""Client of the compute service's RPC API; messages go to one host's server.

Version history:
  1.0: build_and_run_instance, terminate_instance
  1.1: stop_instance, start_instance, reboot_instance
  1.2: pause_instance, unpause_instance, suspend_instance, resume_instance,
       get_console_output
  1.3: set_host_enabled
  1.4: get_host_uptime
  1.5: prep_resize, resize_instance, finish_resize, confirm_resize, revert_resize,
       finish_revert_resize (resize and cold migration)
  1.9: power_update (the 2.76 power-update external event)
  1.10: get_instance_diagnostics
  1.11: rebuild_instance
  1.12: rescue_instance, unrescue_instance
  1.13: snapshot_instance
  1.14: shelve_instance, shelve_offload_instance, unshelve_instance
  1.15: live_migration, post_live_migration_at_destination
  1.16: evacuate_instance
  1.17: live_migration_force_complete, live_migration_abort
  1.18: trigger_crash_dump
  1.19: soft_delete_instance, restore_instance
  1.20: backup_instance
  1.21: pre_live_migration, rollback_live_migration_at_destination
  1.22: attach_volume, detach_volume
  1.23: refresh_device_metadata (the API attached or detached an interface)
  1.24: extend_volume (the 2.51 volume-extended external event)
  1.25: pre_live_migration takes the source's migrate_data (what its guest is like)
  1.26: attach_interface (a call: the API answers with the plugged port),
        detach_interface (a cast, as Nova's)
  1.27: cache_images (a call: the conductor gathers each host's outcome)
  1.28: get_vnc_console, get_serial_console, validate_console_port
  1.29: volume_snapshot_create, volume_snapshot_delete (assisted volume snapshots:
        casts, as Nova's; the compute reports to the volume service)
  1.30: set_admin_password (a call: the API answers with the guest's outcome)
"""

from __future__ import annotations

from typing import Any

from novalite.conf import CONF
from novalite.context import RequestContext
from novalite.objects.block_device import BlockDeviceMapping
from novalite.objects.console import ConsoleEndpoint
from novalite.objects.diagnostics import Diagnostics
from novalite.objects.flavor import Flavor
from novalite.objects.image import ImageMeta
from novalite.objects.instance import Instance
from novalite.objects.migration import Migration
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

    def soft_delete_instance(self, ctx: RequestContext, host: str, instance: Instance
                             ) -> None:
        self.client.prepare(server=host, version="1.19").cast(
            ctx, "soft_delete_instance", instance=instance)

    def restore_instance(self, ctx: RequestContext, host: str, instance: Instance) -> None:
        self.client.prepare(server=host, version="1.19").cast(
            ctx, "restore_instance", instance=instance)

    def trigger_crash_dump(self, ctx: RequestContext, host: str, instance: Instance
                           ) -> None:
        self.client.prepare(server=host, version="1.18").cast(
            ctx, "trigger_crash_dump", instance=instance)

    def set_admin_password(self, ctx: RequestContext, host: str, instance: Instance,
                           new_pass: str) -> None:
        self.client.prepare(server=host, version="1.30").call(
            ctx, "set_admin_password", instance=instance, new_pass=new_pass)

    def get_console_output(self, ctx: RequestContext, host: str, instance: Instance,
                           tail_length: int | None) -> str:
        return self.client.prepare(server=host, version="1.2").call(
            ctx, "get_console_output", instance=instance, tail_length=tail_length)

    def get_vnc_console(self, ctx: RequestContext, host: str, instance: Instance,
                        console_type: str) -> ConsoleEndpoint:
        return self.client.prepare(server=host, version="1.28").call(
            ctx, "get_vnc_console", instance=instance, console_type=console_type)

    def get_serial_console(self, ctx: RequestContext, host: str, instance: Instance,
                           console_type: str) -> ConsoleEndpoint:
        return self.client.prepare(server=host, version="1.28").call(
            ctx, "get_serial_console", instance=instance, console_type=console_type)

    def validate_console_port(self, ctx: RequestContext, host: str, instance: Instance,
                              port: int, internal_access_path: str | None,
                              console_type: str) -> bool:
        return self.client.prepare(server=host, version="1.28").call(
            ctx, "validate_console_port", instance=instance, port=port,
            internal_access_path=internal_access_path, console_type=console_type)

    def set_host_enabled(self, ctx: RequestContext, host: str, enabled: bool) -> None:
        self.client.prepare(server=host, version="1.3").cast(
            ctx, "set_host_enabled", enabled=enabled)

    def get_host_uptime(self, ctx: RequestContext, host: str) -> str:
        return self.client.prepare(server=host, version="1.4").call(ctx, "get_host_uptime")

    def cache_images(self, ctx: RequestContext, host: str, image_ids: list[str]
                     ) -> dict[str, str]:
        """{image id: cached, existing, unsupported or error} from `host`; every image
        "unsupported" on a compute older than 1.27."""
        if not self.client.can_send_version("1.27"):
            return dict.fromkeys(image_ids, "unsupported")
        return self.client.prepare(server=host, version="1.27",
                                   timeout=CONF.long_rpc_timeout).call(
            ctx, "cache_images", image_ids=image_ids)

    def get_instance_diagnostics(self, ctx: RequestContext, host: str,
                                 instance: Instance) -> Diagnostics:
        return self.client.prepare(server=host, version="1.10").call(
            ctx, "get_instance_diagnostics", instance=instance)

    def rebuild_instance(self, ctx: RequestContext, host: str, instance: Instance,
                         image: ImageMeta, preserve_ephemeral: bool) -> None:
        self.client.prepare(server=host, version="1.11").cast(
            ctx, "rebuild_instance", instance=instance, image=image,
            preserve_ephemeral=preserve_ephemeral)

    def snapshot_instance(self, ctx: RequestContext, host: str, instance: Instance,
                          image_id: str) -> None:
        self.client.prepare(server=host, version="1.13").cast(
            ctx, "snapshot_instance", instance=instance, image_id=image_id)

    def backup_instance(self, ctx: RequestContext, host: str, instance: Instance,
                        image_id: str, backup_type: str, rotation: int) -> None:
        self.client.prepare(server=host, version="1.20").cast(
            ctx, "backup_instance", instance=instance, image_id=image_id,
            backup_type=backup_type, rotation=rotation)

    def shelve_instance(self, ctx: RequestContext, host: str, instance: Instance,
                        image_id: str) -> None:
        self.client.prepare(server=host, version="1.14").cast(
            ctx, "shelve_instance", instance=instance, image_id=image_id)

    def shelve_offload_instance(self, ctx: RequestContext, host: str,
                                instance: Instance) -> None:
        self.client.prepare(server=host, version="1.14").cast(
            ctx, "shelve_offload_instance", instance=instance)

    def unshelve_instance(self, ctx: RequestContext, host: str, instance: Instance,
                          image: ImageMeta, node: str) -> None:
        self.client.prepare(server=host, version="1.14").cast(
            ctx, "unshelve_instance", instance=instance, image=image, node=node)

    def live_migration(self, ctx: RequestContext, host: str, instance: Instance,
                       migration: Migration) -> None:
        """To the source: move the guest to the migration's destination."""
        self.client.prepare(server=host, version="1.15").cast(
            ctx, "live_migration", instance=instance, migration=migration)

    def pre_live_migration(self, ctx: RequestContext, host: str, instance: Instance,
                           migration: Migration, migrate_data: dict[str, Any]
                           ) -> dict[str, Any]:
        """To the destination: get ready to receive the guest, as the source's driver
        describes it in `migrate_data` (a destination older than 1.25 is not told);
        what the source's driver needs to send it (an address to migrate to, say), and
        the attachments made for its volumes there."""
        told = ({"migrate_data": migrate_data} if self.client.can_send_version("1.25")
                else {})
        found: dict[str, Any] = self.client.prepare(
            server=host, version="1.25" if told else "1.21").call(
            ctx, "pre_live_migration", instance=instance, migration=migration, **told)
        return found

    def rollback_live_migration_at_destination(self, ctx: RequestContext, host: str,
                                               instance: Instance) -> None:
        """To the destination: remove what pre_live_migration prepared. A call where
        Nova casts, so that the server is idle again only once the destination holds
        nothing of the guest: a next live migration there neither finds this one's
        leftovers nor has them removed under it."""
        self.client.prepare(server=host, version="1.21").call(
            ctx, "rollback_live_migration_at_destination", instance=instance)

    def post_live_migration_at_destination(self, ctx: RequestContext, host: str,
                                           instance: Instance, migration: Migration
                                           ) -> None:
        self.client.prepare(server=host, version="1.15").cast(
            ctx, "post_live_migration_at_destination", instance=instance,
            migration=migration)

    def live_migration_force_complete(self, ctx: RequestContext, host: str,
                                      instance: Instance, migration: Migration) -> None:
        """To the source: finish the running copy now (the guest pauses for it)."""
        self.client.prepare(server=host, version="1.17").cast(
            ctx, "live_migration_force_complete", instance=instance, migration=migration)

    def live_migration_abort(self, ctx: RequestContext, host: str, instance: Instance,
                             migration: Migration) -> None:
        """To the source: cancel the live migration, queued or running."""
        self.client.prepare(server=host, version="1.17").cast(
            ctx, "live_migration_abort", instance=instance, migration=migration)

    def evacuate_instance(self, ctx: RequestContext, host: str, instance: Instance,
                          image: ImageMeta, migration: Migration, stopped: bool) -> None:
        """To the destination: rebuild a server of a failed host here."""
        self.client.prepare(server=host, version="1.16").cast(
            ctx, "evacuate_instance", instance=instance, image=image, migration=migration,
            stopped=stopped)

    def rescue_instance(self, ctx: RequestContext, host: str, instance: Instance,
                        image: ImageMeta, rescue_password: str | None) -> None:
        self.client.prepare(server=host, version="1.12").cast(
            ctx, "rescue_instance", instance=instance, image=image,
            rescue_password=rescue_password)

    def unrescue_instance(self, ctx: RequestContext, host: str, instance: Instance) -> None:
        self.client.prepare(server=host, version="1.12").cast(
            ctx, "unrescue_instance", instance=instance)

    def power_update(self, ctx: RequestContext, host: str, instance: Instance,
                     target: str) -> None:
        self.client.prepare(server=host, version="1.9").cast(
            ctx, "power_update", instance=instance, target=target)

    # --- resize and cold migration (1.5), each cast to the host whose step it is

    def _cast_move(self, ctx: RequestContext, host: str, method: str, **kwargs: object
                   ) -> None:
        self.client.prepare(server=host, version="1.5").cast(ctx, method, **kwargs)

    def prep_resize(self, ctx: RequestContext, host: str, instance: Instance, flavor: Flavor,
                    migration: Migration, request_spec: RequestSpec,
                    host_list: list[Selection], node: str) -> None:
        """To the destination: claim and take the move."""
        self._cast_move(ctx, host, "prep_resize", instance=instance, flavor=flavor,
                        migration=migration, request_spec=request_spec,
                        host_list=host_list, node=node)

    def resize_instance(self, ctx: RequestContext, host: str, instance: Instance,
                        flavor: Flavor, migration: Migration) -> None:
        """To the source: power off and hand the disks over."""
        self._cast_move(ctx, host, "resize_instance", instance=instance, flavor=flavor,
                        migration=migration)

    def finish_resize(self, ctx: RequestContext, host: str, instance: Instance,
                      migration: Migration, disk_info: str, power_on: bool) -> None:
        """To the destination: start the guest there (VERIFY_RESIZE)."""
        self._cast_move(ctx, host, "finish_resize", instance=instance, migration=migration,
                        disk_info=disk_info, power_on=power_on)

    def confirm_resize(self, ctx: RequestContext, host: str, instance: Instance,
                       migration: Migration) -> None:
        """To the source: drop what was kept for a revert."""
        self._cast_move(ctx, host, "confirm_resize", instance=instance, migration=migration)

    def revert_resize(self, ctx: RequestContext, host: str, instance: Instance,
                      migration: Migration) -> None:
        """To the destination: destroy the moved guest."""
        self._cast_move(ctx, host, "revert_resize", instance=instance, migration=migration)

    def finish_revert_resize(self, ctx: RequestContext, host: str, instance: Instance,
                             migration: Migration) -> None:
        """To the source: bring the original guest back."""
        self._cast_move(ctx, host, "finish_revert_resize", instance=instance,
                        migration=migration)

    def attach_volume(self, ctx: RequestContext, host: str, instance: Instance,
                      bdm: BlockDeviceMapping) -> None:
        """Connect the volume the API reserved (`bdm` names its attachment) to the guest."""
        self.client.prepare(server=host, version="1.22").cast(
            ctx, "attach_volume", instance=instance, bdm=bdm)

    def detach_volume(self, ctx: RequestContext, host: str, instance: Instance,
                      bdm: BlockDeviceMapping) -> None:
        self.client.prepare(server=host, version="1.22").cast(
            ctx, "detach_volume", instance=instance, bdm=bdm)

    def extend_volume(self, ctx: RequestContext, host: str, instance: Instance,
                      volume_id: str) -> None:
        self.client.prepare(server=host, version="1.24").cast(
            ctx, "extend_volume", instance=instance, volume_id=volume_id)

    def attach_interface(self, ctx: RequestContext, host: str, instance: Instance,
                         port_id: str, tag: str | None, preserve: bool) -> None:
        """Bind the port the API made or claimed (`preserve`: the user's own) to the
        host and plug it into the guest; raises InterfaceAttachFailed, the port
        unbound, when the driver cannot."""
        self.client.prepare(server=host, version="1.26").call(
            ctx, "attach_interface", instance=instance, port_id=port_id, tag=tag,
            preserve=preserve)

    def detach_interface(self, ctx: RequestContext, host: str, instance: Instance,
                         port_id: str) -> None:
        """A cast, as Nova's: the guest may take its time to let the device go."""
        self.client.prepare(server=host, version="1.26").cast(
            ctx, "detach_interface", instance=instance, port_id=port_id)

    def volume_snapshot_create(self, ctx: RequestContext, host: str, instance: Instance,
                               volume_id: str, create_info: dict[str, Any]) -> None:
        """Move the guest's disk of the volume onto create_info's new file."""
        self.client.prepare(server=host, version="1.29").cast(
            ctx, "volume_snapshot_create", instance=instance, volume_id=volume_id,
            create_info=create_info)

    def volume_snapshot_delete(self, ctx: RequestContext, host: str, instance: Instance,
                               volume_id: str, snapshot_id: str,
                               delete_info: dict[str, Any]) -> None:
        """Merge away the file delete_info names from the guest's chain of the volume."""
        self.client.prepare(server=host, version="1.29").cast(
            ctx, "volume_snapshot_delete", instance=instance, volume_id=volume_id,
            snapshot_id=snapshot_id, delete_info=delete_info)
