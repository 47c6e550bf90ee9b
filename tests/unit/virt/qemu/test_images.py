import hashlib
import os

import pytest

from novalite.clients import glance
from novalite.virt.qemu import images

DATA = b"disk-bytes" * 1000


class Response:
    def __init__(self, status: int, body: bytes = b"") -> None:
        self.status_code, self.body = status, body

    def iter_content(self, size: int):
        for start in range(0, len(self.body), size):
            yield self.body[start:start + size]


@pytest.fixture
def downloads(conf, monkeypatch):
    """The image service's answers to GET .../file, and how many were asked for."""
    calls = []

    def request(method, url, ctx, **kwargs):
        calls.append(url)
        return Response(200, DATA)

    monkeypatch.setattr(images.glance, "request", request)
    return calls


def _image(**fields) -> dict:
    return {"id": "0c5b7d3e-8a1f-4f6e-9b2d-1a2b3c4d5e6f", "status": "active",
            "size": len(DATA), **fields}


def test_download_is_verified_and_cached_once(downloads):
    image = _image(os_hash_algo="sha512", os_hash_value=hashlib.sha512(DATA).hexdigest())
    path = images.fetch(None, image)
    with open(path, "rb") as cached:
        assert cached.read() == DATA
    assert images.fetch(None, image) == path
    assert len(downloads) == 1
    assert os.path.dirname(path) == images.base_dir()


def test_legacy_md5_checksum_is_used_without_a_multihash(downloads):
    path = images.fetch(None, _image(checksum=hashlib.md5(DATA).hexdigest()))
    assert os.path.exists(path)


def test_checksum_mismatch_discards_the_download(downloads):
    image = _image(os_hash_algo="sha512", os_hash_value="0" * 128)
    with pytest.raises(glance.ImageUnusable, match="checksum does not match"):
        images.fetch(None, image)
    assert os.listdir(images.base_dir()) == []  # no partial or bad file left to boot from


def test_an_image_that_is_not_active_is_refused(downloads):
    with pytest.raises(glance.ImageUnusable, match="queued"):
        images.fetch(None, _image(status="queued"))
    assert downloads == []


def test_a_precache_says_whether_it_downloaded(downloads):
    image = _image(checksum=hashlib.md5(DATA).hexdigest())
    assert images.precache(None, image) is True
    assert images.precache(None, image) is False
    assert len(downloads) == 1
