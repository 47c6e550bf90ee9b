"""Who may see an image: the one place both the image API and the compute API ask.

Glance's rules: admins see everything; anyone sees public and community images; a
project sees the images it owns; a shared image is seen by the projects it is shared with
(whatever their member status, so they can decide to accept it). Lists are narrower:
community images only when asked for, and shared ones only at the requested member status
(accepted by default). Compute boots only what a list would show at `accepted`.
"""

from __future__ import annotations

from sqlalchemy import ColumnElement, and_, false, or_, select, true

from novalite.context import RequestContext
from novalite.db import models
from novalite.image.record import ImageRecord

VISIBILITIES = ("public", "private", "shared", "community")
MEMBER_STATUSES = ("pending", "accepted", "rejected")


def is_owner(ctx: RequestContext, image: ImageRecord) -> bool:
    return image.owner is not None and image.owner == ctx.project_id


def is_visible(ctx: RequestContext, image: ImageRecord, member_status: str | None) -> bool:
    """Whether `ctx` may see `image`; `member_status` is its membership, if any."""
    if ctx.is_admin or image.visibility in ("public", "community") or is_owner(ctx, image):
        return True
    return image.visibility == "shared" and member_status is not None


def is_bootable(ctx: RequestContext, image: ImageRecord, member_status: str | None) -> bool:
    """Whether compute may boot `image` for `ctx`: visible, and a shared image accepted."""
    if image.visibility == "shared" and not (ctx.is_admin or is_owner(ctx, image)):
        return member_status == "accepted"
    return is_visible(ctx, image, member_status)


def _membership(project_id: str | None, member_status: str) -> ColumnElement[bool]:
    members = select(models.image.ImageMember.image_id).where(
        models.image.ImageMember.member == project_id)
    if member_status != "all":
        members = members.where(models.image.ImageMember.status == member_status)
    return models.Image.id.in_(members)


def list_clause(ctx: RequestContext, visibility: str | None, member_status: str
                ) -> ColumnElement[bool]:
    """The SQL condition of the images a list shows `ctx` for a `visibility` filter."""
    image = models.Image
    if ctx.is_admin:
        return true() if visibility in (None, "all") else image.visibility == visibility
    owned = image.owner == ctx.project_id
    shared_to_me = and_(image.visibility == "shared",
                        _membership(ctx.project_id, member_status))
    by_filter = {
        None: or_(image.visibility == "public", owned, shared_to_me),
        "all": or_(image.visibility.in_(("public", "community")), owned, shared_to_me),
        "public": image.visibility == "public",
        "community": image.visibility == "community",
        "private": and_(image.visibility == "private", owned),
        "shared": or_(and_(image.visibility == "shared", owned), shared_to_me),
    }
    return by_filter.get(visibility, false())
