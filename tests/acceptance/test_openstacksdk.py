"""The acceptance scenario again through openstacksdk, as a Python user drives the cloud:
the compute, image and identity proxies, configured by the generated clouds.yaml."""

from __future__ import annotations

from pathlib import Path

import pytest
from openstack import connection, exceptions
from openstack.config import OpenStackConfig

from novalite.image import db as images
from tests.acceptance.credentials import clouds_yaml_with, public_key


def _connect(clouds_yaml, cloud: str, **options: str) -> connection.Connection:
    config = OpenStackConfig(config_files=[str(clouds_yaml)], load_envvars=False)
    return connection.Connection(config=config.get_one(cloud=cloud, **options))


def test_a_demo_user_runs_a_server_life_with_openstacksdk(cloud, tmp_path):
    demo = _connect(cloud.clouds_yaml, "novalite")
    admin = _connect(cloud.clouds_yaml, "novalite-admin")
    assert demo.authorize()

    flavor = demo.compute.find_flavor("m1.tiny", ignore_missing=False)
    assert (flavor.ram, flavor.vcpus, flavor.is_public) == (512, 1, True)
    image = demo.image.create_image("sdk-img", data=b"\1" * 2048, disk_format="raw",
                                    container_format="bare", wait=True)
    assert demo.image.get_image(image.id).status == "active"
    assert image.id in {i.id for i in demo.image.images()}
    keypair = demo.compute.create_keypair(name="sdk-key", public_key=public_key())
    assert keypair.fingerprint

    server = demo.compute.create_server(name="sdk-vm", image_id=image.id,
                                        flavor_id=flavor.id, key_name="sdk-key",
                                        networks="auto")
    server = demo.compute.wait_for_server(server, status="ACTIVE", interval=0.2, wait=60)
    assert [(s.id, s.name) for s in demo.compute.servers(name="sdk-vm")] == [
        (server.id, "sdk-vm")]
    assert demo.compute.get_server(server.id).key_name == "sdk-key"
    _power_cycle(demo, server)

    assert len(list(admin.compute.hypervisors(details=True))) == 2
    assert "nova" in {z.name for z in admin.compute.availability_zones(details=True)}
    limits = demo.compute.get_limits().absolute
    # the package's other tests share this cloud: count the project's servers, not just ours
    mine = len(list(demo.compute.servers()))
    assert limits.instances_used == mine and limits.instances == 10

    other = _other_project_user(admin, cloud.clouds_yaml, tmp_path)
    assert list(other.compute.servers()) == []
    with pytest.raises(exceptions.NotFoundException):
        other.compute.get_server(server.id)

    demo.compute.delete_server(server)
    demo.compute.wait_for_delete(server, interval=0.2, wait=60)
    assert demo.compute.find_server("sdk-vm") is None


def _power_cycle(conn: connection.Connection, server) -> None:
    conn.compute.stop_server(server)
    conn.compute.wait_for_server(server, status="SHUTOFF", interval=0.2, wait=60)
    conn.compute.start_server(server)
    conn.compute.wait_for_server(server, status="ACTIVE", interval=0.2, wait=60)
    conn.compute.reboot_server(server, "HARD")
    conn.compute.wait_for_server(server, status="ACTIVE", interval=0.2, wait=60)


def _other_project_user(admin: connection.Connection, clouds_yaml: Path,
                        tmp_path: Path) -> connection.Connection:
    project = admin.identity.create_project(name="sdk-other", domain_id="default")
    user = admin.identity.create_user(name="sdk-user", password="s3cret",
                                      default_project_id=project.id, domain_id="default")
    member = admin.identity.find_role("member", ignore_missing=False)
    admin.identity.assign_project_role_to_user(project, user, member)
    assert admin.identity.validate_user_has_project_role(project, user, member)
    copy = clouds_yaml_with(clouds_yaml, tmp_path / "clouds.yaml", "novalite-other",
                            "sdk-user", "sdk-other", "s3cret")
    return _connect(copy, "novalite-other")


def test_floating_ips_through_novas_proxy_with_openstacksdk(cloud):
    """openstacksdk's cloud layer with `floating_ip_source: nova` (what it uses for a
    cloud without Neutron) is the one client left that drives os-floating-ips,
    os-floating-ip-pools and addFloatingIp/removeFloatingIp: the openstack CLI's
    floating IP commands all go to the network service now."""
    demo = _connect(cloud.clouds_yaml, "novalite", floating_ip_source="nova")
    assert {"name": "public"} in demo.list_floating_ip_pools()  # (other files add more)
    fip = demo.create_floating_ip(network="public")
    assert fip.floating_ip_address.startswith("172.24.4.") and not fip.attached
    assert fip.id in {f.id for f in demo.list_floating_ips()}

    server = demo.compute.create_server(name="sdk-fip", image_id=images.DEFAULT_IMAGE_ID,
                                        flavor_id="1", networks="auto")
    server = demo.compute.wait_for_server(server, status="ACTIVE", interval=0.2, wait=60)
    server = demo.add_ip_list(server, [fip.floating_ip_address], wait=True, timeout=30)
    assert demo.get_floating_ip(fip.id).attached
    wired = demo.network.get_ip(fip.id)  # the network service's own association
    assert wired.port_id and wired.status == "ACTIVE"

    demo.detach_ip_from_server(server.id, fip.id)
    assert demo.network.get_ip(fip.id).port_id is None
    assert demo.delete_floating_ip(fip.id, retry=0)
    assert demo.get_floating_ip(fip.id) is None
    demo.compute.delete_server(server)
    demo.compute.wait_for_delete(server, interval=0.2, wait=60)
