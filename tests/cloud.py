"""The all-in-one, in this process, serving real HTTP on a free port (fixtures `cloud_factory`
and `cloud`, registered by the conftests that import them)."""

from __future__ import annotations

import os
from collections.abc import Callable

import httpx
import pytest

from novalite import http_server
from novalite.all_in_one import AllInOne
from novalite.conf import CONF
from novalite.datapath import teardown
from novalite.image import db as images
from novalite.rpc.inprocess import InProcessTransport
from novalite.rpc.transport import get_transport
from novalite.volume.exports import Exports
from tests.waiting import wait_for


class Cloud:
    def __init__(self, aio: AllInOne, base_url: str) -> None:
        self.aio = aio
        self.base_url = base_url
        self.api = httpx.Client(base_url=f"{base_url}/compute/v2.1", timeout=30)

    def compute(self, host: str):
        """The compute manager of one simulated host (for fault injection)."""
        return next(s.manager for s in self.aio.services if s.host == host
                    and s.binary == "novalite-compute")

    def boot(self, name: str = "vm", flavor: str = "1", **server) -> str:
        body = {"server": {"name": name, "flavorRef": flavor,
                           "imageRef": images.DEFAULT_IMAGE_ID, **server}}
        response = self.api.post("/servers", json=body)
        assert response.status_code == 202, response.text
        return response.json()["server"]["id"]

    def server(self, server_id: str) -> dict:
        response = self.api.get(f"/servers/{server_id}")
        assert response.status_code == 200, response.text
        return response.json()["server"]

    def settle(self, timeout: float = 15) -> None:
        """Await the cast chains under way (a boot, a delete, an action) to their end."""
        transport = get_transport(CONF.transport_url)
        if isinstance(transport, InProcessTransport):
            transport.join(timeout)

    def wait(self, predicate: Callable[[], object], timeout: float = 15) -> object:
        """For what no cast announces (a guest's console, a periodic task's work)."""
        return wait_for(predicate, timeout)

    def wait_status(self, server_id: str, *statuses: str) -> dict:
        self.settle()
        return self.wait(lambda: (s := self.server(server_id))["status"] in statuses and s)

    def wait_gone(self, server_id: str) -> None:
        self.settle()
        self.wait(lambda: self.api.get(f"/servers/{server_id}").status_code == 404)


@pytest.fixture
def cloud_factory(conf, state_db):
    started = []

    def start(hosts: int = 2, **fake_driver) -> Cloud:
        # Scheduling tests boot beyond a project's default quota; quota tests set limits.
        for resource in ("instances", "cores", "ram"):
            conf.set_override(resource, -1, group="quota")
        for key, value in fake_driver.items():
            conf.set_override(key, value, group="fake_driver")
        aio = AllInOne(hosts)
        aio.prepare()
        aio.start_control_plane()
        server = http_server.make_server("127.0.0.1", 0)
        started.append((aio, server, http_server.start_in_thread(server)))
        port = http_server.bound_port(server)
        aio.bootstrap_identity(port)
        base_url = f"http://127.0.0.1:{port}"
        aio.start_computes(base_url, server.config.app)
        return Cloud(aio, base_url)

    yield start
    for aio, server, thread in started:
        aio.stop(stop_http=lambda s=server, t=thread: http_server.stop(s, t))
    _stop_volume_exports()
    if started and CONF.compute_driver == "qemu":  # real guests were wired into namespaces
        teardown.remove_all()


def _stop_volume_exports() -> None:
    """Volume exports outlive their service by design, as guests do; a test leaves none
    (a failed one included)."""
    root = os.path.join(CONF.state_path, "volume-exports")
    for host in os.listdir(root) if os.path.isdir(root) else []:
        exports = Exports(host)
        for attachment_id in exports.known():
            exports.stop(attachment_id)


@pytest.fixture
def cloud(cloud_factory) -> Cloud:
    return cloud_factory()
