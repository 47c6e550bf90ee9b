"""The acceptance scenario again through openstacksdk, as a Python user drives the cloud:
the compute, image and identity proxies, configured by the generated clouds.yaml."""

from __future__ import annotations

from pathlib import Path

import pytest
from openstack import connection, exceptions
from openstack.config import OpenStackConfig

from tests.acceptance.credentials import clouds_yaml_with, public_key


def _connect(clouds_yaml, cloud: str) -> connection.Connection:
    config = OpenStackConfig(config_files=[str(clouds_yaml)], load_envvars=False)
    return connection.Connection(config=config.get_one(cloud=cloud))


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
