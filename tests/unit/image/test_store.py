"""The file store: streamed writes with hashes, atomic placement, size cap."""

from __future__ import annotations

import hashlib
import os

import pytest

from novalite.image import errors, store


def test_write_hashes_while_streaming_and_reads_back(conf):
    chunks = [b"a" * 1000, b"", b"b" * 70000]
    written = store.write("img", iter(chunks), size_cap=10**6)
    data = b"".join(chunks)
    assert written == store.Written(len(data), hashlib.md5(data).hexdigest(), "sha512",
                                    hashlib.sha512(data).hexdigest(), data[:512])
    assert store.path("img") == os.path.join(conf.state_path, "images", "img")
    read = list(store.read("img"))
    assert b"".join(read) == data and max(map(len, read)) <= store.CHUNK_SIZE


def test_too_large_leaves_nothing_behind(conf):
    with pytest.raises(errors.ImageTooLarge):
        store.write("img", iter([b"x" * 600, b"x" * 600]), size_cap=1000)
    assert os.listdir(store.datadir()) == []


def test_hashing_algorithm_and_datadir_options(conf, tmp_path):
    conf.set_override("hashing_algorithm", "sha256")
    conf.set_override("filesystem_store_datadir", str(tmp_path / "elsewhere"),
                      group="glance_store")
    assert store.write("img", [b"x"], 10).os_hash_value == hashlib.sha256(b"x").hexdigest()
    assert os.path.exists(tmp_path / "elsewhere" / "img")
    store.delete("img")
    store.delete("img")
    with pytest.raises(FileNotFoundError):
        store.read("img")
