import json
import subprocess

import pytest

from novalite.volume import errors
from novalite.volume.backend import FileBackend


def _info(path: str) -> dict:
    return json.loads(subprocess.run(["qemu-img", "info", "--output=json", path], check=True,
                                     capture_output=True, text=True).stdout)


def test_a_volume_is_a_qcow2_file_of_its_size_and_delete_is_idempotent(tmp_path):
    backend = FileBackend(str(tmp_path / "volumes"))
    backend.setup()
    backend.create("v1", 2)
    info = _info(backend.path("v1"))
    assert (info["format"], info["virtual-size"]) == ("qcow2", 2 * 1024**3)
    assert not (tmp_path / "volumes" / "v1.part").exists()
    backend.delete("v1")
    backend.delete("v1")
    assert not (tmp_path / "volumes" / "v1").exists()


def test_a_failing_qemu_img_is_a_backend_error_saying_why(tmp_path):
    backend = FileBackend(str(tmp_path / "missing-dir"))
    with pytest.raises(errors.BackendError, match="qemu-img create failed"):
        backend.create("v1", 1)
