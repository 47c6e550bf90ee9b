"""The file store: each image's bytes in one file named by its id, under
`[glance_store] filesystem_store_datadir` (default `$state_path/images`).

Data streams through in chunks both ways and is never held whole in memory; checksums
are computed while the bytes go by. A write lands in a temporary file that is renamed
into place only once complete, so a reader never sees half an image.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import os
import tempfile
from collections.abc import Iterable, Iterator

from novalite.conf import CONF
from novalite.image import errors
from novalite.image.format_inspector import HEAD_SIZE

CHUNK_SIZE = 64 * 1024


@dataclasses.dataclass(frozen=True)
class Written:
    size: int
    checksum: str  # md5, Glance's legacy `checksum`
    os_hash_algo: str
    os_hash_value: str
    head: bytes  # the first bytes, for the format inspector


def datadir() -> str:
    return CONF.glance_store.filesystem_store_datadir or os.path.join(CONF.state_path,
                                                                      "images")


def path(image_id: str) -> str:
    return os.path.join(datadir(), image_id)


def write(image_id: str, chunks: Iterable[bytes], size_cap: int) -> Written:
    """Store the image's bytes; more than `size_cap` of them is ImageTooLarge."""
    os.makedirs(datadir(), exist_ok=True)
    md5 = hashlib.md5(usedforsecurity=False)
    multihash = hashlib.new(CONF.hashing_algorithm)
    size, head = 0, b""
    fd, temporary = tempfile.mkstemp(dir=datadir(), prefix=f".{image_id}.")
    try:
        with os.fdopen(fd, "wb") as out:
            for chunk in chunks:
                size += len(chunk)
                if size > size_cap:
                    raise errors.ImageTooLarge()
                if len(head) < HEAD_SIZE:
                    head += chunk[:HEAD_SIZE - len(head)]
                md5.update(chunk)
                multihash.update(chunk)
                out.write(chunk)
        os.replace(temporary, path(image_id))
    except BaseException:
        os.unlink(temporary)
        raise
    return Written(size, md5.hexdigest(), CONF.hashing_algorithm, multihash.hexdigest(),
                   head)


def read(image_id: str) -> Iterator[bytes]:
    """The image's bytes in chunks; the file is opened now, so a missing one fails here."""
    handle = open(path(image_id), "rb")  # noqa: SIM115 - closed by the generator

    def chunks() -> Iterator[bytes]:
        with handle:
            while chunk := handle.read(CHUNK_SIZE):
                yield chunk

    return chunks()


def delete(image_id: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path(image_id))
