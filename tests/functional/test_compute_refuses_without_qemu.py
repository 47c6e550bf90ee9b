"""A compute service with the qemu driver on a host without QEMU does not start: the
command exits with a message naming the package to install, not a traceback."""

import subprocess
import sys
from pathlib import Path

BIN = Path(sys.executable).parent


def test_novalite_compute_exits_naming_the_package(tmp_path):
    config = tmp_path / "novalite.conf"
    config.write_text(f"[DEFAULT]\ncompute_driver = qemu\nstate_path = {tmp_path}\n"
                      "[qemu]\nemulator = /nonexistent/qemu-system-x86_64\n")
    done = subprocess.run([str(BIN / "novalite-compute"), "--config-file", str(config)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "apt-get install qemu-system-x86" in done.stderr
    assert "Traceback" not in done.stderr
