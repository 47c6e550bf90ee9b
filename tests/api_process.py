"""A process serving one API alone (novalite-network, novalite-placement) on a database of
its own, for the tests of those commands."""

from __future__ import annotations

import contextlib
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx

from tests.ports import free_port
from tests.waiting import wait_for

BIN = Path(sys.executable).parent


@contextlib.contextmanager
def serving(tmp_path: Path, binary: str, listen: str, root: str) -> Iterator[str]:
    """`binary` listening where its [DEFAULT] options `listen` ("bind_host bind_port")
    say, once GET `root` answers; its base URL. Stopped by SIGTERM after the block."""
    host_option, port_option = listen.split()
    port = free_port()
    config = tmp_path / "novalite.conf"
    config.write_text(f"[DEFAULT]\nstate_path = {tmp_path}\n{host_option} = 127.0.0.1\n"
                      f"{port_option} = {port}\n[api]\nauth_strategy = noauth2\n")
    subprocess.run([BIN / "novalite-manage", "--config-file", config, "db", "sync"],
                   check=True, capture_output=True)
    proc = subprocess.Popen([BIN / binary, "--config-file", config],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"

    def answers() -> bool:
        assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
        return httpx.get(base + root, timeout=5).status_code == 200

    try:
        wait_for(answers, timeout=30, interval=0.1, ignore=(httpx.TransportError,),
                 what=f"{binary} answering")
        yield base
    finally:
        proc.terminate()
        proc.wait(30)
