"""Glance's JSON patch: parsing by media type and applying to an image."""

from __future__ import annotations

import pytest

from novalite.image import patch
from novalite.image.record import ImageRecord

V21 = "application/openstack-images-v2.1-json-patch"
V20 = "application/openstack-images-v2.0-json-patch"


def test_parse_both_drafts():
    assert patch.parse([{"op": "replace", "path": "/name", "value": "x"}], V21) == \
        [patch.Change("replace", "name", "x")]
    assert patch.parse([{"remove": "/a~1b"}], V20) == [patch.Change("remove", "a/b")]


@pytest.mark.parametrize("body,error", [
    ({"op": "add"}, patch.BadPatch),
    (["x"], patch.BadPatch),
    ([{"op": "copy", "path": "/a"}], patch.BadPatch),
    ([{"op": "add", "path": "/a"}], patch.BadPatch),
    ([{"op": "add", "path": "/a/b", "value": 1}], patch.BadPatch),
    ([{"op": "add", "path": "a", "value": 1}], patch.BadPatch),
    ([{"op": "add", "path": "/size", "value": 1}], patch.ForbiddenPatch),
    ([{"op": "add", "path": "/id", "value": "x"}], patch.ForbiddenPatch),
    ([{"op": "add", "path": "/deleted", "value": "x"}], patch.ForbiddenPatch),
    ([{"op": "add", "path": "/os_glance_x", "value": "x"}], patch.ForbiddenPatch),
])
def test_parse_refuses(body, error):
    with pytest.raises(error):
        patch.parse(body, V21)


def test_apply_leaves_the_original_alone():
    image = ImageRecord(id="i", name="a", properties={"p": "1"})
    changed = patch.apply(image, [patch.Change("replace", "name", "b"),
                                  patch.Change("add", "q", "2"),
                                  patch.Change("add", "p", "3"),
                                  patch.Change("remove", "q")])
    assert (changed.name, changed.properties) == ("b", {"p": "3"})
    assert (image.name, image.properties) == ("a", {"p": "1"})


@pytest.mark.parametrize("change,draft,error", [
    (patch.Change("remove", "name"), 10, patch.ForbiddenPatch),
    (patch.Change("remove", "nope"), 10, patch.PatchConflict),
    (patch.Change("replace", "nope", "x"), 10, patch.PatchConflict),
    (patch.Change("add", "p", "x"), 4, patch.PatchConflict),
])
def test_apply_refuses(change, draft, error):
    with pytest.raises(error):
        patch.apply(ImageRecord(id="i", properties={"p": "1"}), [change], draft)
