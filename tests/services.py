"""The real services tests need, with one policy for when one is missing: outside CI the
test skips and says how to start it; under CI=true it fails, so a broken CI machine can
never pass by skipping everything."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import uuid
from collections.abc import Iterator
from contextlib import contextmanager, suppress

import pytest
import sqlalchemy as sa

START = {
    "PostgreSQL": "pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start",
    "MariaDB": "start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd",
    "RabbitMQ": "rabbitmq-server -detached",
}
PORTS = {"PostgreSQL": 5432, "MariaDB": 3306, "RabbitMQ": 5672}
ADMIN_URLS = {
    "postgresql": "postgresql+psycopg://postgres@127.0.0.1:5432/postgres",
    "mysql": "mysql+pymysql://root@127.0.0.1:3306/test",
}
NAMES = {"postgresql": "PostgreSQL", "mysql": "MariaDB"}


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() == "true"


def require(service: str) -> None:
    """Skip (fail under CI=true) unless `service` accepts TCP connections on localhost."""
    try:
        socket.create_connection(("127.0.0.1", PORTS[service]), timeout=2).close()
    except OSError as exc:
        reason = (f"{service} is not reachable on 127.0.0.1:{PORTS[service]} ({exc}); "
                  f"start it with: {START[service]}")
        if in_ci():
            pytest.fail(reason)
        pytest.skip(reason)


def require_postgresql() -> str:
    """The admin URL (database `postgres`), for creating and dropping test databases."""
    require("PostgreSQL")
    return ADMIN_URLS["postgresql"]


def require_mysql() -> str:
    """The admin URL of MariaDB (root, database `test`)."""
    require("MariaDB")
    return ADMIN_URLS["mysql"]


def require_rabbitmq() -> str:
    require("RabbitMQ")
    return "rabbit://guest:guest@127.0.0.1:5672/"


REQUIRE = {"postgresql": require_postgresql, "mysql": require_mysql}


@contextmanager
def temporary_vhost() -> Iterator[str]:
    """A RabbitMQ vhost of its own, so no queue or leftover message crosses between runs;
    deleted afterwards. Yields its transport URL."""
    require_rabbitmq()
    vhost = f"novalite-test-{uuid.uuid4().hex[:8]}"
    subprocess.run(["rabbitmqctl", "-q", "add_vhost", vhost], check=True, capture_output=True)
    try:
        subprocess.run(["rabbitmqctl", "-q", "set_permissions", "-p", vhost, "guest", ".*",
                        ".*", ".*"], check=True, capture_output=True)
        yield f"rabbit://guest:guest@127.0.0.1:5672/{vhost}"
    finally:
        subprocess.run(["rabbitmqctl", "-q", "delete_vhost", vhost], capture_output=True)


@contextmanager
def temporary_database(backend: str) -> Iterator[str]:
    """A new, empty database on the real server; dropped afterwards. Yields its URL.

    A unique name per test keeps parallel runs and leftovers of killed runs apart."""
    if backend == "sqlite":
        raise ValueError("SQLite needs no server: use a file under tmp_path")
    admin_url = REQUIRE[backend]()
    name = f"novalite_test_{uuid.uuid4().hex[:10]}"
    admin = sa.create_engine(admin_url, isolation_level="AUTOCOMMIT")
    if backend == "postgresql":
        url = f"postgresql+psycopg://postgres@127.0.0.1:5432/{name}"
        create, drop = f'CREATE DATABASE "{name}"', f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'
    else:
        url = f"mysql+pymysql://root@127.0.0.1:3306/{name}?charset=utf8mb4"
        create = f"CREATE DATABASE `{name}` CHARACTER SET utf8mb4"
        drop = f"DROP DATABASE IF EXISTS `{name}`"
    try:
        with admin.connect() as conn:
            conn.exec_driver_sql(create)
        try:
            yield url
        finally:
            with admin.connect() as conn:
                conn.exec_driver_sql(drop)
    finally:
        admin.dispose()


QEMU_PACKAGES = "qemu-system-x86 qemu-utils busybox-static cpio"
DATAPATH_PACKAGES = "iproute2 nftables dnsmasq-base"


def root_namespace() -> tuple[str, ...]:
    """The machine's own interfaces, routes and firewall rules, as text (what a tool that
    is missing would show is left out)."""
    found = []
    for argv in (["ip", "-br", "link", "show"], ["ip", "route", "show", "table", "all"],
                 ["nft", "list", "ruleset"]):
        if shutil.which(argv[0]):
            found.append(subprocess.run(argv, capture_output=True, text=True).stdout)
    return tuple(found)


def require_datapath() -> None:
    """Namespaces, bridges and DHCP need root and iproute2/dnsmasq: outside CI their
    absence skips, under CI=true it fails (.ci/run installs them)."""
    missing = [b for b in ("ip", "dnsmasq", "busybox") if not shutil.which(b)]
    reason = (f"{', '.join(missing)} not installed; apt-get install -y "
              f"--no-install-recommends {DATAPATH_PACKAGES} busybox-static"
              if missing else "network namespaces need root")
    if missing or os.geteuid() != 0:
        if in_ci():
            pytest.fail(reason)
        pytest.skip(reason)


def require_qemu() -> None:
    """Real guests need QEMU: outside CI its absence skips, naming the packages; under
    CI=true it fails (.ci/run installs them)."""
    missing = [b for b in ("qemu-system-x86_64", "qemu-img") if not shutil.which(b)]
    if missing:
        reason = (f"{', '.join(missing)} not installed; apt-get install -y "
                  f"--no-install-recommends {QEMU_PACKAGES}")
        if in_ci():
            pytest.fail(reason)
        pytest.skip(reason)


def require_tool(tool: str, package: str) -> str:
    """The path of a program a test runs: outside CI its absence skips, naming its Debian
    package; under CI=true it fails (.ci/run installs it)."""
    path = shutil.which(tool)
    if path is None:
        reason = f"{tool} not installed; apt-get install -y --no-install-recommends {package}"
        if in_ci():
            pytest.fail(reason)
        pytest.skip(reason)
    return path


def kill_guests(directory: str) -> None:
    """Never leave a guest (or a disk export of a move) running after a test: they
    outlive their compute by design."""
    if not os.path.isdir(directory):
        return
    for pidfile in [os.path.join(directory, d, name) for d in os.listdir(directory)
                    for name in ("qemu.pid", "nbd.pid")]:
        with suppress(OSError, ValueError), open(pidfile) as found:
            os.kill(int(found.read()), signal.SIGKILL)


