"""The all-in-one cloud: every service in one process on the embedded defaults
(SQLite under the state directory, in-process messaging, simulated hosts), or with
`compute_driver = qemu` one compute running real guests on this machine."""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from keystoneauth1.identity import v3

from novalite.clients import adapters
from novalite.clients import placement as placement_client
from novalite.compute.aggregates import COMPUTE_BINARY
from novalite.conf import CONF, cinder_client, glance_client, neutron_client
from novalite.db import migration
from novalite.db.api import flavors, services
from novalite.identity import bootstrap
from novalite.image import db as images
from novalite.image import seed
from novalite.network import layout, metadata_proxy, network_node, nova_notifier
from novalite.network.agent_loop import SyncLoop
from novalite.service import assembly
from novalite.service.base import Service, start_together
from novalite.virt.qemu import images as qemu_images

if TYPE_CHECKING:
    from novalite.scheduler.manager import SchedulerManager

LOG = logging.getLogger(__name__)


def compute_host_names(count: int) -> list[str]:
    """One compute per real machine (named as Nova names it, [DEFAULT] host: the
    hostname), or [qemu] hosts of them on this one; the fake driver simulates `count`."""
    if real_guests():
        hosts = CONF.qemu.hosts
        return [CONF.host] if hosts == 1 else [f"{CONF.host}-{i}" for i in range(1, hosts + 1)]
    return [f"compute{i}" for i in range(1, count + 1)]


def driver_args(host: str) -> dict[str, str]:
    """QEMU computes sharing this machine keep their guests apart, as separate machines
    would: each in its own directory."""
    if real_guests() and CONF.qemu.hosts > 1:
        return {"instances_dir": os.path.join(qemu_images.instances_path(), host)}
    return {}


def real_guests() -> bool:
    return CONF.compute_driver == "qemu"


# Why an earlier start's compute is disabled; only computes disabled for it are enabled
# again when a later start runs them (an operator's own reason is left alone).
NOT_RUN_REASON = "not run by the novalite all-in-one's current start"


class AllInOne:
    def __init__(self, hosts: int) -> None:
        self.hosts = hosts
        self.services: list[Service] = []
        self.scheduler: Service | None = None
        self.identity: bootstrap.Result | None = None
        self.network_node: list[SyncLoop] = []

    def prepare(self) -> None:
        """Bring the database to the current schema and seed what a new cloud needs
        (with real guests, building the guest image first: the first time, ~20 s)."""
        migration.db_sync()
        self._disable_computes_not_run()
        created = flavors.seed_default_flavors()
        if seed.seed_default_image() or created:
            LOG.info("Seeded %d flavors and the image %s", created, images.DEFAULT_IMAGE_NAME)

    def _disable_computes_not_run(self) -> None:
        """Computes an earlier start on this state directory ran and this one does not (the
        simulated hosts, after a switch to --driver qemu) get no builds: they are disabled,
        and enabled again by a start that runs them. Only on the state directory's own
        database: on one named by [database] connection, other computes may be running
        elsewhere."""
        if CONF.database.connection:
            return
        running = set(compute_host_names(self.hosts))
        disabled = []
        for svc in services.service_get_all(COMPUTE_BINARY):
            if svc.host not in running and not svc.disabled:
                services.service_update(svc.id, {"disabled": True,
                                                  "disabled_reason": NOT_RUN_REASON})
                disabled.append(svc.host)
            elif svc.host in running and svc.disabled and svc.disabled_reason == NOT_RUN_REASON:
                services.service_update(svc.id, {"disabled": False, "disabled_reason": None})
        if disabled:
            LOG.info("Disabled the compute services of %s: this start runs %s",
                     ", ".join(sorted(disabled)), ", ".join(sorted(running)) or "none")

    def bootstrap_identity(self, port: int) -> bootstrap.Result:
        """Identity for the address the API really listens on (idempotent: a later start
        on another port moves the catalog and clouds.yaml with it)."""
        self.identity = bootstrap.bootstrap(bootstrap.base_url(port))
        layout.ensure(*bootstrap.project_ids("admin", "demo"))
        return self.identity

    def start_control_plane(self) -> None:
        """Conductor, scheduler and the volume manager, before the HTTP APIs take requests
        (the APIs cast to them); computes register and report through the conductor."""
        self.scheduler = assembly.scheduler()
        self.services = [assembly.conductor(), self.scheduler, assembly.volume()]
        for svc in self.services:
            svc.start()
        if real_guests() or CONF.datapath.network_node:  # guests with real networks
            self.network_node = network_node.start()

    def start_computes(self, base_url: str, app: Any = None) -> None:
        """The computes, once the HTTP APIs at `base_url` serve (`app`, in this process):
        they report to placement as they start. Then the API's own service record."""
        self._configure_service_clients(base_url, app)
        computes = [assembly.compute(h, driver_args(h)) for h in compute_host_names(self.hosts)]
        try:
            start_together(computes)
        finally:  # those started are stopped with the rest
            self.services += [svc for svc in computes if svc.record is not None]
        if self.scheduler is not None:  # the hosts just registered read now, not by the
            # first boot (0.3 s of it at 10,000 hosts)
            cast("SchedulerManager", self.scheduler.manager).warm_host_states()
        api = assembly.api()
        api.start()
        self.services.append(api)

    def _configure_service_clients(self, base_url: str, app: Any) -> None:
        """The services reach placement, the image, network and volume services on this
        process's own HTTP server (its `app` called in-process, without a socket), with
        the admin's credentials when tokens are checked
        (a Nova deployment gives them a service user in the same way), unless
        [placement] / [glance] / [neutron] / [cinder] name others."""
        auth = None
        if CONF.api.auth_strategy == "keystone" and self.identity is not None:
            auth = v3.Password(auth_url=f"{base_url}/identity/v3", username="admin",
                               password=self.identity.passwords["admin"],
                               project_name="admin", user_domain_name="Default",
                               project_domain_name="Default")
        placement_client.use_local_placement(f"{base_url}/placement", auth, app)
        adapters.use_local(glance_client.GROUP, f"{base_url}/image", auth, app)
        adapters.use_local(neutron_client.GROUP, f"{base_url}/networking", auth, app)
        adapters.use_local(cinder_client.GROUP, f"{base_url}/volume/v3", auth, app)
        adapters.use_local(nova_notifier.GROUP, f"{base_url}/compute/v2.1", auth, app)
        metadata_proxy.use_local(f"{base_url}/metadata")

    def stop(self, stop_http: Callable[[], None] = lambda: None) -> None:
        """API first (no new work); then let in-flight work finish while every service
        still answers (a build in a compute calls the conductor, which calls the
        scheduler...) and so does the HTTP server, which in-flight work reaches for
        placement, images and ports; then `stop_http`, then the services. Stopping the
        HTTP server first left that work retrying a closed port until the drain's
        timeout (a minute per stop)."""
        for agent in self.network_node:
            agent.stop()
        self.network_node = []
        if not self.services:
            stop_http()
            return
        self.services[-1].stop()
        self._drain(CONF.graceful_shutdown_timeout)
        stop_http()
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

    def banner(self, port: int) -> str:
        base = bootstrap.base_url(port)
        count = len(compute_host_names(self.hosts))
        hosts = (f"{count} QEMU host{'s' if count > 1 else ''}" if real_guests()
                 else f"{self.hosts} simulated hosts")
        lines = [
            f"novalite all-in-one is running: {hosts}, "
            f"database {CONF.database.connection or CONF.state_path + '/novalite.sqlite'}",
            f"  Compute API: {base}/compute/v2.1   Identity: {base}/identity/v3",
        ]
        flavor_id, flavor = ("42", "m1.nano") if real_guests() else ("1", "m1.tiny")
        if CONF.api.auth_strategy == "noauth2":
            lines += [
                "  Auth: noauth2; any X-Auth-Token 'user:project', none = admin",
                f"  Try: curl -s {base}/compute/v2.1/flavors",
                f"       curl -s -X POST {base}/compute/v2.1/servers -H 'Content-Type: "
                f"application/json' -d '{{\"server\": {{\"name\": \"vm1\", \"flavorRef\": "
                f"\"{flavor_id}\", \"imageRef\": \"{images.DEFAULT_IMAGE_ID}\"}}}}'",
            ]
        if self.identity is not None:
            lines += [
                f"  Credentials (clouds novalite and novalite-admin): {self.identity.clouds_yaml}",
                f"  export OS_CLOUD=novalite OS_CLIENT_CONFIG_FILE={self.identity.clouds_yaml}",
                "  Try: openstack token issue; openstack flavor list",
                f"       openstack server create --image {images.DEFAULT_IMAGE_NAME} "
                f"--flavor {flavor} --wait vm1",
            ]
        lines.append("  Stop with Ctrl-C.")
        return "\n".join(lines)
