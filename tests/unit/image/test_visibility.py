"""Who sees and who may boot an image, by Glance's rules."""

from __future__ import annotations

import pytest

from novalite.context import RequestContext
from novalite.image import visibility
from novalite.image.record import ImageRecord

ALICE = RequestContext(user_id="alice", project_id="p1", roles=["member"])
BOB = RequestContext(user_id="bob", project_id="p2", roles=["member"])
ADMIN = RequestContext(user_id="admin", project_id="admin", roles=["admin"], is_admin=True)


@pytest.mark.parametrize("shown,ctx,member,visible,bootable", [
    ("public", BOB, None, True, True),
    ("community", BOB, None, True, True),
    ("private", ALICE, None, True, True),
    ("private", BOB, None, False, False),
    ("private", ADMIN, None, True, True),
    ("shared", ALICE, None, True, True),
    ("shared", BOB, None, False, False),
    ("shared", BOB, "pending", True, False),
    ("shared", BOB, "rejected", True, False),
    ("shared", BOB, "accepted", True, True),
    ("shared", ADMIN, None, True, True),
])
def test_visible_and_bootable(shown, ctx, member, visible, bootable):
    image = ImageRecord(id="i", visibility=shown, owner="p1")
    assert visibility.is_visible(ctx, image, member) is visible
    assert visibility.is_bootable(ctx, image, member) is bootable


def test_an_image_without_owner_is_nobodys():
    image = ImageRecord(id="i", visibility="private", owner=None)
    assert not visibility.is_visible(RequestContext(project_id=None), image, None)
