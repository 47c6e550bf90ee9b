"""The all-in-one cloud: every service in one process on the embedded defaults
(SQLite under the state directory, in-process messaging, simulated hosts)."""

from __future__ import annotations

import logging
import time

from novalite import services
from novalite.conf import CONF
from novalite.db import migration
from novalite.db.api import flavors, images
from novalite.image import seed
from novalite.scheduler.client import report
from novalite.service import Service

LOG = logging.getLogger(__name__)


def compute_host_names(count: int) -> list[str]:
    return [f"compute{i}" for i in range(1, count + 1)]


class AllInOne:
    def __init__(self, hosts: int) -> None:
        self.hosts = hosts
        self.services: list[Service] = []

    def prepare(self) -> None:
        """Bring the database to the current schema and seed what a new cloud needs."""
        migration.db_sync()
        created = flavors.seed_default_flavors()
        if seed.seed_default_image() or created:
            LOG.info("Seeded %d flavors and the image %s", created, images.DEFAULT_IMAGE_NAME)

    def start_control_plane(self) -> None:
        """Conductor and scheduler, before the HTTP APIs take requests (the API casts to
        the conductor); computes register and report through the conductor."""
        self.services = [services.conductor(), services.scheduler()]
        for svc in self.services:
            svc.start()

    def start_computes(self, base_url: str) -> None:
        """The computes, once the HTTP APIs at `base_url` serve: they report to
        placement as they start. Then the API's own service record."""
        if not CONF.placement.endpoint_override and not CONF.placement.auth_type:
            CONF.set_override("endpoint_override", f"{base_url}/placement", group="placement")
        report.reset()
        started = [services.compute(h) for h in compute_host_names(self.hosts)]
        started.append(services.api())
        for svc in started:
            svc.start()
            self.services.append(svc)

    def stop(self) -> None:
        """API first (no new work); then let in-flight work finish while every service
        still answers (a build in a compute calls the conductor, which calls the
        scheduler...); then stop them all."""
        if not self.services:
            return
        self.services[-1].stop()
        self._drain(CONF.graceful_shutdown_timeout)
        for svc in self.services[:-1]:
            svc.stop()
        self.services = []

    def _drain(self, timeout: float) -> None:
        servers = [s.rpcserver for s in self.services if s.rpcserver]
        deadline = time.monotonic() + timeout
        quiet = 0
        while quiet < 3 and time.monotonic() < deadline:  # idle three looks in a row
            quiet = quiet + 1 if not any(s.in_flight for s in servers) else 0
            time.sleep(0.02)

    @staticmethod
    def banner(port: int) -> str:
        base = f"http://127.0.0.1:{port}"
        return (
            f"novalite all-in-one is running: {CONF.fake_driver.hosts} simulated hosts, "
            f"database {CONF.database.connection or CONF.state_path + '/novalite.sqlite'}\n"
            f"  Compute API: {base}/compute/v2.1  (auth: noauth2; any X-Auth-Token "
            f"'user:project', none = admin)\n"
            f"  Try: curl -s {base}/compute/v2.1/flavors\n"
            f"       curl -s -X POST {base}/compute/v2.1/servers -H 'Content-Type: "
            f"application/json' -d '{{\"server\": {{\"name\": \"vm1\", \"flavorRef\": \"1\", "
            f"\"imageRef\": \"{images.DEFAULT_IMAGE_ID}\"}}}}'\n"
            f"  Stop with Ctrl-C."
        )
