"""The file backend: each volume a qcow2 file named by its id under [DEFAULT] volumes_dir
(default `$state_path/volumes`), made, copied and grown with `qemu-img`. A snapshot is a
full copy of its volume (`snapshot-<id>`, made with `qemu-img convert`), not a backing
chain: deleting either never touches the other.

A volume attached to a server is open in its export's qemu-nbd, which holds QEMU's write
lock on the file: a snapshot or copy of it (Cinder's `force`) reads it with
`--force-share`, getting the data as it is at that moment.

A file is created under a temporary name and renamed into place once complete, so a
manager killed half-way leaves no file that looks like a volume; removing a volume that
has no file is not an error (a delete retried after a crash)."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
import subprocess
import threading

from novalite import affinity
from novalite.conf import CONF
from novalite.volume import errors

LOG = logging.getLogger(__name__)
GiB = 1024**3


def volumes_dir() -> str:
    return CONF.volumes_dir or os.path.join(CONF.state_path, "volumes")


def virtual_size(path: str, disk_format: str) -> int:
    """The size in bytes of the disk the file at `path` holds."""
    info = json.loads(_qemu_img("info", "--force-share", "--output=json", "-f", disk_format,
                                path))
    return int(info["virtual-size"])


def _qemu_img(*args: str) -> str:
    try:
        with affinity.unpinned():
            return subprocess.run(["qemu-img", *args], check=True, capture_output=True,
                                  text=True).stdout
    except FileNotFoundError as exc:
        raise errors.BackendError(f"qemu-img is not installed: {exc}") from exc
    except subprocess.CalledProcessError as exc:
        raise errors.BackendError(f"qemu-img {args[0]} failed: {exc.stderr.strip()}") from exc


class FileBackend:
    def __init__(self, directory: str) -> None:
        self.directory = directory

    def setup(self) -> None:
        os.makedirs(self.directory, exist_ok=True)

    def path(self, volume_id: str) -> str:
        return os.path.join(self.directory, volume_id)

    def image_path(self, volume_id: str) -> str:
        """Where an image's data waits to be written into the volume."""
        return os.path.join(self.directory, f".image-{volume_id}")

    def snapshot_path(self, snapshot_id: str) -> str:
        return os.path.join(self.directory, f"snapshot-{snapshot_id}")

    def create(self, volume_id: str, size_gb: int) -> None:
        """An empty volume of `size_gb` (qcow2: it takes no space until written), copied
        from the backend's empty qcow2 of that size."""
        partial = self.path(volume_id) + ".part"
        shutil.copyfile(self._empty(size_gb), partial)
        os.replace(partial, self.path(volume_id))

    def _empty(self, size_gb: int) -> str:
        """An empty qcow2 of `size_gb`, made once by qemu-img: it makes the same bytes
        each time (a qcow2 holds no id or time), and copying its 200 KB costs a tenth of a
        millisecond against the 6-9 ms of CPU a qemu-img process takes to start."""
        path = os.path.join(self.directory, f".empty-{size_gb}G")
        if not os.path.exists(path):
            partial = f"{path}.{os.getpid()}-{threading.get_ident()}.part"
            try:
                _qemu_img("create", "-q", "-f", "qcow2", partial, f"{size_gb}G")
                os.replace(partial, path)
            finally:  # what a failed qemu-img left
                with contextlib.suppress(FileNotFoundError):
                    os.remove(partial)
        return path

    def copy(self, source: str, volume_id: str, size_gb: int,
             source_format: str = "qcow2") -> None:
        """A volume of `size_gb` holding a copy of the disk at `source` (a volume, a
        snapshot, an image's data), which must not be larger. The source's format is
        given, never probed: a raw image could otherwise pass itself off as qcow2."""
        if virtual_size(source, source_format) > size_gb * GiB:
            raise errors.ImageTooLarge(f"{source} is larger than {size_gb} GB")
        partial = self.path(volume_id) + ".part"
        _qemu_img("convert", "-q", "--force-share", "-f", source_format, "-O", "qcow2",
                  source, partial)
        _qemu_img("resize", "-q", "-f", "qcow2", partial, f"{size_gb}G")
        os.replace(partial, self.path(volume_id))

    def snapshot(self, volume_id: str, snapshot_id: str) -> None:
        partial = self.snapshot_path(snapshot_id) + ".part"
        _qemu_img("convert", "-q", "--force-share", "-f", "qcow2", "-O", "qcow2",
                  self.path(volume_id), partial)
        os.replace(partial, self.snapshot_path(snapshot_id))

    def export(self, volume_id: str, out: str, disk_format: str) -> None:
        """The volume's data as a standalone `disk_format` file at `out` (an image's),
        read as it is now even while a server has it open."""
        _qemu_img("convert", "-q", "--force-share", "-f", "qcow2", "-O", disk_format,
                  self.path(volume_id), out)

    def extend(self, volume_id: str, size_gb: int) -> None:
        _qemu_img("resize", "-q", "-f", "qcow2", self.path(volume_id), f"{size_gb}G")

    def delete(self, volume_id: str) -> None:
        _remove(self.path(volume_id))
        _remove(self.image_path(volume_id))

    def delete_snapshot(self, snapshot_id: str) -> None:
        _remove(self.snapshot_path(snapshot_id))


def _remove(path: str) -> None:
    for name in (path, path + ".part"):
        with contextlib.suppress(FileNotFoundError):
            os.remove(name)
