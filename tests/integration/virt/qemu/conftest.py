"""Real guests boot in an all-in-one in this process, with the qemu driver."""

import pytest

from novalite.all_in_one import driver_args
from tests import services
from tests.cloud import cloud_factory  # noqa: F401 (fixture)


@pytest.fixture
def two_qemu_hosts(cloud_factory, conf):  # noqa: F811 (the imported fixture)
    services.require_qemu()
    conf.set_override("compute_driver", "qemu")
    conf.set_override("hosts", 2, group="qemu")
    conf.set_override("virt_type", "qemu", group="libvirt")
    conf.set_override("shutdown_timeout", 30)
    conf.set_override("shutdown_retry_interval", 10, group="compute")
    cloud = cloud_factory(hosts=2)
    yield cloud
    for server in cloud.api.get("/servers").json()["servers"]:
        cloud.api.delete(f"/servers/{server['id']}")
        cloud.wait_gone(server["id"])
    for host in (s.host for s in cloud.aio.services if s.binary == "novalite-compute"):
        services.kill_guests(driver_args(host)["instances_dir"])
