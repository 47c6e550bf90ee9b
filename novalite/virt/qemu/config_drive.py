"""A config drive (Nova's `config_drive`): the guest's metadata tree
(novalite.instance_metadata) on an ISO 9660 image labelled `config-2`, as Nova's libvirt
driver writes it with `[DEFAULT] mkisofs_cmd`, attached read-only so that the guest (or
cloud-init) reads its user data, keys and network configuration without the metadata
service. Written again wherever the guest is created (a move rebuilds it)."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile

from novalite import affinity, exception, instance_metadata
from novalite.conf import CONF
from novalite.objects.instance import Instance

LABEL = "config-2"


def write(instance: Instance, path: str) -> None:
    program = shutil.which(CONF.mkisofs_cmd)
    if program is None:
        raise exception.BuildAbortException(
            instance_uuid=instance.uuid,
            reason=f"a config drive needs {CONF.mkisofs_cmd}, which is not installed: "
                   "apt-get install -y genisoimage (or set [DEFAULT] mkisofs_cmd)")
    with tempfile.TemporaryDirectory(prefix="config-drive-") as tree:
        for name, content in instance_metadata.files(instance).items():
            target = os.path.join(tree, name)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "wb") as out:
                out.write(content)
        with affinity.unpinned():
            done = subprocess.run([program, "-o", f"{path}.tmp", "-ldots",
                                   "-allow-lowercase", "-allow-multidot", "-l", "-publisher",
                                   "novalite", "-quiet", "-J", "-r", "-V", LABEL, tree],
                                  capture_output=True, text=True, timeout=60)
    if done.returncode:
        raise exception.NovaliteException(
            f"Writing the config drive of {instance.uuid} failed: {done.stderr.strip()}")
    os.replace(f"{path}.tmp", path)
