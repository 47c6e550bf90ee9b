"""The compute's image service client: a snapshot's formats, then its data; a failing
service named in a clear error."""

import pytest

from novalite import exception
from novalite.clients import glance


class Response:
    def __init__(self, status: int, text: str = "") -> None:
        self.status_code, self.text = status, text


@pytest.fixture
def service(monkeypatch):
    """What the image service is asked (method, url, body) and answers in turn."""
    asked, answers = [], []

    class Adapter:
        def request(self, url, method, **kwargs):
            asked.append((method, url, kwargs.get("json") or b"".join(kwargs.get("data")
                                                                     or [])))
            return answers.pop(0)

    monkeypatch.setattr(glance.adapters, "adapter", lambda group: Adapter())
    return asked, answers


def test_upload_sets_the_formats_then_streams_the_data(service):
    asked, answers = service
    answers += [Response(200), Response(204)]
    glance.upload(None, "img", [b"ab", b"cd"], disk_format="qcow2")
    assert asked == [
        ("PATCH", "/v2/images/img",
         [{"op": "replace", "path": "/disk_format", "value": "qcow2"},
          {"op": "replace", "path": "/container_format", "value": "bare"}]),
        ("PUT", "/v2/images/img/file", b"abcd")]


@pytest.mark.parametrize(("answers", "error"), [
    ([Response(404)], exception.ImageNotFound),
    ([Response(200), Response(413, "too big")], glance.ImageServiceUnavailable),
])
def test_upload_failures_are_named(service, answers, error):
    service[1].extend(answers)
    with pytest.raises(error):
        glance.upload(None, "img", [b"x"], disk_format="raw")


def test_delete_of_a_gone_image_is_fine(service):
    service[1].extend([Response(404)])
    glance.delete(None, "img")
