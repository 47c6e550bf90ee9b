"""A server's volume attachment as Nova shows it (`_translate_attachment_detail_view`):
its `id` is the volume's until 2.89, which shows the Cinder attachment and the mapping's
uuid instead; 2.70 adds `tag`, 2.79 `delete_on_termination`."""

from __future__ import annotations

from typing import Any

from novalite.objects.block_device import BlockDeviceMapping


def attachment(bdm: BlockDeviceMapping, version: tuple[int, int]) -> dict[str, Any]:
    view: dict[str, Any] = {} if version >= (2, 89) else {"id": bdm.volume_id}
    view.update(volumeId=bdm.volume_id, serverId=bdm.instance_uuid)
    if bdm.device_name:
        view["device"] = bdm.device_name
    if version >= (2, 70):
        view["tag"] = bdm.tag
    if version >= (2, 79):
        view["delete_on_termination"] = bdm.delete_on_termination
    if version >= (2, 89):
        view.update(attachment_id=bdm.attachment_id, bdm_uuid=bdm.uuid)
    return view


def attached(bdm: BlockDeviceMapping, version: tuple[int, int]) -> dict[str, Any]:
    """The answer to an attach: always `device`, never 2.89's fields (as Nova's)."""
    view: dict[str, Any] = {"id": bdm.volume_id, "serverId": bdm.instance_uuid,
                            "volumeId": bdm.volume_id, "device": bdm.device_name}
    if version >= (2, 70):
        view["tag"] = bdm.tag
    if version >= (2, 79):
        view["delete_on_termination"] = bdm.delete_on_termination
    return view
