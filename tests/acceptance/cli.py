"""The unmodified `openstack` CLI as the acceptance scenarios run it, and how they wait.

The CLI's `--wait` polls every 5 s; on the fake driver, where a build or a move takes a
fraction of a second, those sleeps were most of the scenarios' time. `--wait` is
exercised where it is the subject (test_openstack_cli, the real guests); elsewhere a
scenario runs the command without it and `Cli` polls the server through openstacksdk,
with the same clouds.yaml entry, every 0.2 s until it is idle in the wanted status."""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
from pathlib import Path

from openstack import connection
from openstack.config import OpenStackConfig

from tests.waiting import wait_for

OPENSTACK = Path(sys.executable).parent / "openstack"


class Cli:
    """`openstack` against one cloud entry of a clouds.yaml."""

    def __init__(self, clouds_yaml: Path, cloud: str):
        self.clouds_yaml, self.cloud = clouds_yaml, cloud
        self.env = {**os.environ, "OS_CLIENT_CONFIG_FILE": str(clouds_yaml),
                    "OS_CLOUD": cloud}

    def run(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(OPENSTACK), *args], env=self.env, capture_output=True,
                              text=True, timeout=120)

    def ok(self, *args: str) -> str:
        result = self.run(*args)
        assert result.returncode == 0, f"openstack {' '.join(args)}:\n{result.stderr}"
        return result.stdout

    def json(self, *args: str):
        return json.loads(self.ok(*args, "-f", "json"))

    @functools.cached_property
    def sdk(self) -> connection.Connection:
        config = OpenStackConfig(config_files=[str(self.clouds_yaml)], load_envvars=False)
        return connection.Connection(config=config.get_one(cloud=self.cloud))

    def _idle_in(self, server: str, status: str) -> bool:
        found = self.sdk.compute.find_server(server, ignore_missing=False)
        assert found.status == status or found.status != "ERROR", \
            f"{server} went to ERROR: {found.fault}"
        return found.status == status and found.task_state is None

    def wait_status(self, server: str, status: str, timeout: float = 60) -> None:
        """Until the server (name or id) is in `status` with no task under way."""
        wait_for(lambda: self._idle_in(server, status), timeout=timeout, interval=0.2,
                 what=f"{server} {status}")

    def boot(self, *args: str) -> dict:
        """`server create <args>` (the name last), then `server show` once it is ACTIVE."""
        server = self.json("server", "create", *args)
        self.wait_status(server["id"], "ACTIVE")
        return self.json("server", "show", server["id"])

    def delete(self, *servers: str, force: bool = False) -> None:
        """`server delete [--force]`, then until every one of them is gone."""
        self.ok("server", "delete", *(("--force",) if force else ()), *servers)
        self.wait_gone(*servers)

    def wait_gone(self, *servers: str) -> None:
        for server in servers:
            wait_for(lambda s=server: self.sdk.compute.find_server(s) is None, timeout=60,
                     interval=0.2, what=f"{server} gone")
