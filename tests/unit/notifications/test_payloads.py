"""The payloads against the structure of Nova's notification samples
(doc/notification_samples in Nova): each payload's name, version and exact key set, and
nested payloads in the same nova_object shape. The expected structures are written here
from the samples; Nova's files are not copied."""

from __future__ import annotations

import datetime

import pytest

from novalite.context import RequestContext
from novalite.notifications.objects import instance as payloads
from novalite.notifications.objects.aggregate import AggregatePayload
from novalite.notifications.objects.exception import ExceptionPayload
from novalite.notifications.objects.flavor import FlavorPayload
from novalite.notifications.objects.keypair import KeypairPayload
from novalite.notifications.objects.request_spec import RequestSpecPayload
from novalite.notifications.objects.server_group import ServerGroupPayload
from novalite.notifications.objects.service import ServiceStatusPayload
from novalite.objects.aggregate import Aggregate
from novalite.objects.flavor import Flavor
from novalite.objects.image import ImageMeta
from novalite.objects.instance import Instance
from novalite.objects.network_info import IP, VIF, Network, Subnet
from novalite.objects.request_spec import InstanceGroup, RequestSpec, SchedulerRetries
from novalite.objects.service import Service

INSTANCE_KEYS = {
    "action_initiator_project", "action_initiator_user", "architecture", "auto_disk_config",
    "availability_zone", "block_devices", "created_at", "deleted_at", "display_description",
    "display_name", "flavor", "host", "host_name", "image_uuid", "ip_addresses", "kernel_id",
    "key_name", "launched_at", "locked", "locked_reason", "metadata", "node", "os_type",
    "power_state", "progress", "ramdisk_id", "request_id", "reservation_id", "shares",
    "state", "task_state", "tenant_id", "terminated_at", "updated_at", "user_id", "uuid"}
FLAVOR_KEYS = {"description", "disabled", "ephemeral_gb", "extra_specs", "flavorid",
               "is_public", "memory_mb", "name", "projects", "root_gb", "rxtx_factor", "swap",
               "vcpu_weight", "vcpus"}
SSH_KEY = ("ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAAAgQDx8nkQv/zgGgB4rMYmIf+6A4l6Rr+o/6lHBQdW5aYd"
           "44bd8JttDCE/F/pNRr0lRE+PiqSPO8nDPHw0010JeMH9gYgnnFlyY3/OcJ02RhIPyyxYpv9FhY+2Yi"
           "UkpwFOcLImyrxEsYXpD/0d3ac30bNH6Sw9JD9UZHYcpSxsIbECHw== Generated-by-Nova")
CTX = RequestContext(user_id="fake", project_id="6f70656e737461636b20342065766572")
FLAVOR = Flavor(flavorid="a22d5517", name="test_flavor", memory_mb=512, vcpus=1,
                root_gb=1, extra_specs={"hw:watchdog_action": "disabled"})
WHEN = datetime.datetime(2012, 10, 29, 13, 42, 11, 123456)


def _instance(**values) -> Instance:
    vif = VIF(id="ce531f90-199f-48c0-816c-13e38010b442", address="fa:16:3e:4c:2c:30",
              network=Network(id="n1", label="private", bridge="br0", subnets=[
                  Subnet(cidr="192.168.1.0/24", ips=[IP(address="192.168.1.3")])]))
    return Instance(**{"uuid": "178b0921-8f85-4257-88b6-2e743b5a975c",
                       "display_name": "some-server", "project_id": CTX.project_id,
                       "user_id": "fake", "image_ref": "155d900f", "flavor": FLAVOR,
                       "host": "compute", "node": "fake-mini", "vm_state": "active",
                       "power_state": 1, "key_name": "my-key", "key_data": SSH_KEY,
                       "created_at": WHEN, "launched_at": WHEN, "hostname": "some-server",
                       "network_info": [vif], **values})


def _shape(primitive: dict, name: str, version: str) -> dict:
    assert set(primitive) == {"nova_object.name", "nova_object.namespace",
                              "nova_object.version", "nova_object.data"}
    assert (primitive["nova_object.name"], primitive["nova_object.namespace"],
            primitive["nova_object.version"]) == (name, "nova", version)
    return primitive["nova_object.data"]


def test_an_action_payload_is_nova_s_instance_action_payload_1_9():
    data = _shape(payloads.InstanceActionPayload(
        **payloads.instance_fields(CTX, _instance()), fault=None).to_primitive(),
        "InstanceActionPayload", "1.9")
    assert set(data) == INSTANCE_KEYS | {"fault"}
    assert (data["state"], data["power_state"], data["tenant_id"]) == (
        "active", "running", CTX.project_id)
    assert data["created_at"] == "2012-10-29T13:42:11Z"
    assert data["request_id"] == CTX.request_id
    assert set(_shape(data["flavor"], "FlavorPayload", "1.4")) == FLAVOR_KEYS
    [ip] = data["ip_addresses"]
    assert _shape(ip, "IpPayload", "1.0") == {
        "label": "private", "mac": "fa:16:3e:4c:2c:30", "meta": {},
        "port_uuid": "ce531f90-199f-48c0-816c-13e38010b442", "version": 4,
        "address": "192.168.1.3", "device_name": "tapce531f90-19"}


def test_a_create_payload_carries_the_boot_key_pair_with_nova_s_fingerprint():
    data = _shape(payloads.InstanceCreatePayload(
        **payloads.instance_fields(CTX, _instance()), fault=None,
        keypairs=payloads.instance_keypairs(_instance()), tags=[],
        trusted_image_certificates=None, instance_name=None).to_primitive(),
        "InstanceCreatePayload", "1.13")
    assert set(data) == INSTANCE_KEYS | {"fault", "keypairs", "tags",
                                         "trusted_image_certificates", "instance_name"}
    [keypair] = data["keypairs"]
    assert _shape(keypair, "KeypairPayload", "1.0") == {
        "user_id": "fake", "name": "my-key", "public_key": SSH_KEY, "type": "ssh",
        "fingerprint": "1e:2c:9b:56:79:4b:45:77:f9:ca:7a:98:2c:b0:d5:3c"}


def test_an_update_payload_has_the_state_update_and_audit_period():
    data = _shape(payloads.InstanceUpdatePayload(
        **payloads.instance_fields(CTX, _instance()),
        state_update=payloads.InstanceStateUpdatePayload(
            old_state="building", state="active", old_task_state="spawning",
            new_task_state=None),
        audit_period=payloads.AuditPeriodPayload(audit_period_beginning=WHEN,
                                                 audit_period_ending=WHEN),
        old_display_name=None, tags=[]).to_primitive(), "InstanceUpdatePayload", "2.1")
    assert set(data) == INSTANCE_KEYS | {"state_update", "audit_period", "old_display_name",
                                         "tags"}
    assert set(_shape(data["state_update"], "InstanceStateUpdatePayload", "1.0")) == {
        "old_state", "state", "old_task_state", "new_task_state"}
    assert set(_shape(data["audit_period"], "AuditPeriodPayload", "1.0")) == {
        "audit_period_beginning", "audit_period_ending"}


@pytest.mark.parametrize(("cls", "version", "extra"), [
    (payloads.InstanceActionRebuildPayload, "1.10", {"trusted_image_certificates": None}),
    (payloads.InstanceActionRescuePayload, "1.4", {"rescue_image_ref": "a2459075"}),
    (payloads.InstanceActionSnapshotPayload, "1.10", {"snapshot_image_id": "d2aae36f"}),
    (payloads.InstanceActionResizePrepPayload, "1.4",
     {"new_flavor": FlavorPayload.from_flavor(FLAVOR)}),
    (payloads.InstanceActionVolumePayload, "1.7",
     {"volume_id": "a07f71dc-8151-4e7d-a0cc-cd24a3f11113"}),
])
def test_the_action_payloads_with_a_field_of_their_own(cls, version, extra):
    data = _shape(cls(**payloads.instance_fields(CTX, _instance()), fault=None,
                      **extra).to_primitive(), cls.NAME, version)
    assert set(data) == INSTANCE_KEYS | {"fault"} | set(extra)


def test_a_deleted_instance_was_terminated_when_deleted_and_a_periodic_task_has_no_request():
    data = payloads.instance_fields(RequestContext(), _instance(vm_state="deleted",
                                                                deleted_at=WHEN))
    assert data["terminated_at"] == data["deleted_at"] == WHEN
    assert data["request_id"] is None


def test_an_exception_payload_names_where_it_was_raised():
    def _schedule_instances():
        raise ValueError("No valid host was found.")

    with pytest.raises(ValueError) as caught:
        _schedule_instances()
    data = _shape(ExceptionPayload.from_exception(caught.value).to_primitive(),
                  "ExceptionPayload", "1.1")
    assert data["function_name"] == "_schedule_instances"
    assert data["module_name"] == __name__
    assert (data["exception"], data["exception_message"]) == ("ValueError",
                                                              "No valid host was found.")
    assert data["traceback"].startswith("Traceback (most recent call last):")


def test_the_payloads_of_the_api_s_resources():
    aggregate = _shape(AggregatePayload.from_aggregate(Aggregate(
        id=1, uuid="788608ec", name="my-aggregate", metadata={"availability_zone": "nova"})
    ).to_primitive(), "AggregatePayload", "1.1")
    assert set(aggregate) == {"hosts", "id", "metadata", "name", "uuid"}
    group = _shape(ServerGroupPayload.make(
        "788608ec", "test-server-group", "fake", CTX.project_id, "anti-affinity",
        {"max_server_per_host": 3}, []).to_primitive(), "ServerGroupPayload", "1.1")
    assert set(group) == {"hosts", "members", "name", "policies", "policy", "project_id",
                          "rules", "user_id", "uuid"}
    assert (group["policies"], group["rules"]) == (["anti-affinity"],
                                                   {"max_server_per_host": "3"})
    keypair = KeypairPayload(user_id="fake", name="k", fingerprint=None, public_key=None,
                             type="ssh")
    assert set(_shape(keypair.to_primitive(), "KeypairPayload", "1.0")) == {
        "fingerprint", "name", "public_key", "type", "user_id"}
    service = _shape(ServiceStatusPayload.from_service(Service(
        id=1, uuid="fa69c544", host="host2", binary="novalite-compute", topic="compute",
        last_seen_up=WHEN)).to_primitive(), "ServiceStatusPayload", "1.1")
    assert set(service) == {"availability_zone", "binary", "disabled", "disabled_reason",
                            "forced_down", "host", "last_seen_up", "report_count", "topic",
                            "uuid", "version"}
    assert service["last_seen_up"] == "2012-10-29T13:42:11Z"


def test_a_request_spec_payload_is_nova_s_1_1_without_the_unset_image_meta():
    spec = RequestSpec(instance_uuid="d5e6a7b7", flavor=FLAVOR, project_id=CTX.project_id,
                       user_id="fake", image=ImageMeta(id="155d900f", name="fakeimage",
                                                       properties={"hw_architecture":
                                                                   "x86_64"}),
                       force_hosts=["host1"], scheduler_hints={"group": ["g1"]},
                       instance_group=InstanceGroup(uuid="g1", policy="affinity"),
                       retry=SchedulerRetries(num_attempts=2,
                                              hosts=[["host1", "node1"]]))
    data = _shape(RequestSpecPayload.from_spec(spec).to_primitive(), "RequestSpecPayload",
                  "1.1")
    assert set(data) == {"availability_zone", "flavor", "force_hosts", "force_nodes",
                         "ignore_hosts", "image", "instance_group", "instance_uuid",
                         "num_instances", "numa_topology", "pci_requests", "project_id",
                         "requested_destination", "retry", "scheduler_hints",
                         "security_groups", "user_id"}
    assert data["force_hosts"] == "host1"
    image = _shape(data["image"], "ImageMetaPayload", "1.0")
    assert set(image) == {"checksum", "container_format", "created_at", "direct_url",
                          "disk_format", "id", "min_disk", "min_ram", "name", "owner",
                          "properties", "protected", "size", "status", "tags",
                          "updated_at", "virtual_size", "visibility"}
    assert _shape(image["properties"], "ImageMetaPropsPayload", "1.19") == {
        "hw_architecture": "x86_64"}
    assert _shape(data["pci_requests"], "InstancePCIRequestsPayload", "1.0") == {
        "instance_uuid": "d5e6a7b7", "requests": []}
    assert _shape(data["retry"], "SchedulerRetriesPayload", "1.0") == {
        "num_attempts": 2, "hosts": ["node1"]}
    assert _shape(data["instance_group"], "ServerGroupPayload", "1.1")["policy"] == "affinity"
