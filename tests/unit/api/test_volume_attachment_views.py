"""A server's volume attachment rendered at each microversion that changes it, checked
against tempest's schema of that version."""

import importlib

import pytest
from tempest.lib.common import jsonschema_validator

from novalite.api.compute.views import volume_attachments as view
from novalite.objects.block_device import BlockDeviceMapping

BDM = BlockDeviceMapping(uuid="2b7e4c1a-2f3d-4e5f-8a9b-0c1d2e3f4a5b",
                         instance_uuid="5e0d1c9a-1111-4222-8333-444455556666",
                         volume_id="0b7e4c1a-2f3d-4e5f-8a9b-0c1d2e3f4a5b",
                         attachment_id="9c7e4c1a-2f3d-4e5f-8a9b-0c1d2e3f4a5b",
                         device_name="/dev/vdb", tag="data", delete_on_termination=True)


def _valid(package: str, schema: str, body: dict) -> None:
    module = importlib.import_module(
        f"tempest.lib.api_schema.response.compute.{package}.servers")
    jsonschema_validator.JSONSCHEMA_VALIDATOR(
        getattr(module, schema)["response_body"],
        format_checker=jsonschema_validator.FORMAT_CHECKER).validate(body)


@pytest.mark.parametrize(("version", "package", "keys"), [
    ((2, 1), "v2_1", {"id", "volumeId", "serverId", "device"}),
    ((2, 70), "v2_70", {"id", "volumeId", "serverId", "device", "tag"}),
    ((2, 79), "v2_79", {"id", "volumeId", "serverId", "device", "tag",
                        "delete_on_termination"}),
    ((2, 89), "v2_89", {"volumeId", "serverId", "device", "tag", "delete_on_termination",
                        "attachment_id", "bdm_uuid"}),
])
def test_show_and_list_at_each_version(version, package, keys):
    shown = view.attachment(BDM, version)
    assert set(shown) == keys
    _valid(package, "show_volume_attachment", {"volumeAttachment": shown})
    _valid(package, "list_volume_attachments", {"volumeAttachments": [shown]})


@pytest.mark.parametrize(("version", "package"), [((2, 1), "v2_1"), ((2, 70), "v2_70"),
                                                  ((2, 89), "v2_89")])
def test_the_answer_to_an_attach(version, package):
    _valid(package, "attach_volume", {"volumeAttachment": view.attached(BDM, version)})
    assert "attachment_id" not in view.attached(BDM, version)  # never, as Nova's


def test_a_mapping_without_a_device_name_shows_none():
    assert "device" not in view.attachment(
        BlockDeviceMapping(uuid="u", instance_uuid="i", volume_id="v"), (2, 1))
