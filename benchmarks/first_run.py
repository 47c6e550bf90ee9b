"""A new user's first minute: clone -> banner, and clone -> first ACTIVE server, as the
README says (`make run`; in a second shell `make client` and the README's third line).

By default the machine's uv and pip caches are used as they are (a user who has installed
Python packages before); `--cold` gives uv an empty cache, so every package is downloaded
(the pip-installed bootstrap of uv itself is then downloaded too, if pip caches nothing).
Targets (issue 15): banner <= 30 s, ACTIVE <= 60 s. JSON last line.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BANNER_END = "Stop with Ctrl-C."


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _env(cache: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("VIRTUAL_ENV", "OS_CLOUD", "OS_CLIENT_CONFIG_FILE")}
    if cache:
        env["UV_CACHE_DIR"] = cache
    return env


def first_run(workdir: Path, cold: bool) -> dict[str, float]:
    clone = workdir / "novalite"
    env = _env(str(workdir / "uv-cache") if cold else None)
    started = time.monotonic()
    subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True)
    cloned = time.monotonic() - started
    out = clone / "run.out"
    with out.open("w") as stdout:
        run = subprocess.Popen(["make", "run", f"ARGS=--port {_free_port()} "
                                "--listen 127.0.0.1"], cwd=clone, env=env, stdout=stdout,
                               stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        while BANNER_END not in out.read_text():
            if run.poll() is not None:
                raise SystemExit(f"make run exited:\n{out.read_text()}")
            time.sleep(0.05)
        banner = time.monotonic() - started
        subprocess.run(["make", "client"], cwd=clone, env=env, check=True,
                       stdout=subprocess.DEVNULL)
        client = time.monotonic() - started
        third_line = (clone / "README.md").read_text().splitlines()[2].strip("`")
        subprocess.run(["bash", "-c", third_line], cwd=clone, env=env, check=True,
                       stdout=subprocess.DEVNULL)
        active = time.monotonic() - started
    finally:
        os.killpg(run.pid, signal.SIGINT)
        run.wait(timeout=60)
    return {"clone_s": round(cloned, 2), "clone_to_banner_s": round(banner, 2),
            "clone_to_client_s": round(client, 2), "clone_to_active_s": round(active, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cold", action="store_true", help="uv starts with an empty cache")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="novalite-first-run-") as workdir:
        result = first_run(Path(workdir), args.cold)
    load = os.getloadavg()[0]
    print(f"clone -> banner {result['clone_to_banner_s']:.1f} s (target 30), "
          f"clone -> ACTIVE {result['clone_to_active_s']:.1f} s (target 60), "
          f"{'cold' if args.cold else 'warm'} uv cache, load average {load:.1f}")
    print(json.dumps({"benchmark": "first_run", "cache": "cold" if args.cold else "warm",
                      **result, "load_average_1m": round(load, 2),
                      "banner_target_met": result["clone_to_banner_s"] <= 30,
                      "active_target_met": result["clone_to_active_s"] <= 60}))


if __name__ == "__main__":
    main()
