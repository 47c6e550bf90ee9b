import json
import subprocess

import pytest

from novalite.volume import backend as backend_module
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


def test_volumes_of_one_size_are_copies_of_what_qemu_img_makes_once(tmp_path, monkeypatch):
    """qemu-img runs once per size; each volume is a file of its own, the bytes qemu-img
    makes for an empty qcow2 of that size."""
    runs = []
    real = backend_module._qemu_img
    monkeypatch.setattr(backend_module, "_qemu_img", lambda *args: runs.append(args) or
                        real(*args))
    backend = FileBackend(str(tmp_path / "volumes"))
    backend.setup()
    for volume_id, size in (("v1", 1), ("v2", 1), ("v3", 3)):
        backend.create(volume_id, size)
    assert [args[0] for args in runs] == ["create", "create"]
    real("create", "-q", "-f", "qcow2", str(tmp_path / "made"), "1G")
    made = (tmp_path / "made").read_bytes()
    assert (tmp_path / "volumes" / "v1").read_bytes() == made
    assert _info(backend.path("v3"))["virtual-size"] == 3 * 1024**3
    subprocess.run(["qemu-io", "-f", "qcow2", "-c", "write -P 7 0 64k", backend.path("v1")],
                   check=True, capture_output=True)
    assert (tmp_path / "volumes" / "v2").read_bytes() == made  # untouched by v1's write
    backend.create("v4", 1)
    assert (tmp_path / "volumes" / "v4").read_bytes() == made


def test_a_failing_qemu_img_is_a_backend_error_saying_why(tmp_path):
    backend = FileBackend(str(tmp_path / "missing-dir"))
    with pytest.raises(errors.BackendError, match="qemu-img create failed"):
        backend.create("v1", 1)


def test_a_qemu_img_failing_half_way_leaves_no_file_behind(tmp_path, monkeypatch):
    def half_made(*args):
        with open(args[-2], "wb") as partial:
            partial.write(b"QFI")
        raise errors.BackendError("qemu-img create failed: No space left on device")

    monkeypatch.setattr(backend_module, "_qemu_img", half_made)
    backend = FileBackend(str(tmp_path / "volumes"))
    backend.setup()
    with pytest.raises(errors.BackendError, match="No space left"):
        backend.create("v1", 1)
    assert list((tmp_path / "volumes").iterdir()) == []
