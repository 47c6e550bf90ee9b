"""The image service's operations (Glance's domain layer): who sees an image, and the
state machine of its data (queued -> saving -> active <-> deactivated). HTTP handlers in
novalite.api.image and the compute API call these; policy stays with the handlers."""

from __future__ import annotations

import contextlib
import uuid as uuidlib
from collections.abc import Iterable, Iterator

from novalite.conf import CONF
from novalite.context import RequestContext
from novalite.image import db as images
from novalite.image import errors, format_inspector, store, visibility
from novalite.image.record import MUTABLE, ImageRecord


def _membership(ctx: RequestContext, image: ImageRecord) -> str | None:
    """The caller's membership of the image, read only where it decides (a shared image
    neither the caller's nor an admin's): every boot of a public image asks."""
    if image.visibility != "shared" or ctx.is_admin or visibility.is_owner(ctx, image):
        return None
    return images.member_status(image.id, ctx.project_id)


def get(ctx: RequestContext, image_id: str) -> ImageRecord:
    """The image if `ctx` may see it; otherwise, as for a missing one, ImageNotFound."""
    image = images.image_get(image_id)
    if not visibility.is_visible(ctx, image, _membership(ctx, image)):
        raise errors.ImageNotFound(image_id=image_id)
    return image


def get_bootable(ctx: RequestContext, image_id: str) -> ImageRecord:
    """The image compute may boot for `ctx` (its status is compute's business)."""
    image = images.image_get(image_id)
    if not visibility.is_bootable(ctx, image, _membership(ctx, image)):
        raise errors.ImageNotFound(image_id=image_id)
    return image


def get_all(ctx: RequestContext, visibility_filter: str | None, member_status: str
            ) -> list[ImageRecord]:
    return images.image_get_all(visibility.list_clause(ctx, visibility_filter,
                                                       member_status))


def create(ctx: RequestContext, image: ImageRecord) -> ImageRecord:
    image.id = image.id or str(uuidlib.uuid4())
    image.owner = image.owner or ctx.project_id
    image.status = "queued"
    return images.image_create(image)


def update(old: ImageRecord, new: ImageRecord) -> ImageRecord:
    """Save what changed between `old` and `new` (attributes, properties, tags)."""
    values = {k: getattr(new, k) for k in (*MUTABLE, "properties")
              if getattr(new, k) != getattr(old, k)}
    if new.tags != old.tags:
        images.tags_set(old.id, new.tags)
    return images.image_update(old.id, values)


def delete(image: ImageRecord) -> None:
    if image.protected:
        raise errors.Protected(image_id=image.id)
    images.image_destroy(image.id)
    store.delete(image.id)


def upload(image_id: str, chunks: Iterable[bytes]) -> ImageRecord:
    """Stream the bytes into the store; the image is `saving` meanwhile, then `active`.
    Only a `queued` image takes data, so of two concurrent uploads one gets a 409."""
    image = images.image_get(image_id)
    missing = [k for k in ("disk_format", "container_format") if not getattr(image, k)]
    if missing:
        raise errors.FormatsMissing(plural="ies" if len(missing) > 1 else "y",
                                    names=", ".join(missing))
    images.image_update(image_id, {"status": "saving"}, from_status=("queued",))
    try:
        written = store.write(image_id, chunks, CONF.image_size_cap)
    except BaseException:
        with contextlib.suppress(errors.ImageError):  # deleted meanwhile: nothing to undo
            images.image_update(image_id, {"status": "queued"}, from_status=("saving",))
        raise
    try:
        return images.image_update(image_id, {
            "status": "active", "size": written.size, "checksum": written.checksum,
            "virtual_size": format_inspector.virtual_size(image.disk_format, written.head,
                                                          written.size),
            "os_hash_algo": written.os_hash_algo, "os_hash_value": written.os_hash_value,
        }, from_status=("saving",))
    except (errors.ImageNotFound, errors.InvalidStatusTransition):
        store.delete(image_id)
        raise errors.ImageGone(image_id=image_id) from None


def download(ctx: RequestContext, image: ImageRecord) -> Iterator[bytes]:
    if image.status == "deactivated" and not ctx.is_admin:
        raise errors.Deactivated()
    if image.status not in ("active", "deactivated"):
        raise errors.NoData()
    try:
        return store.read(image.id)
    except FileNotFoundError:
        raise errors.NoData() from None


def _set_active(image: ImageRecord, action: str, status: str) -> None:
    if image.status not in ("active", "deactivated"):
        raise errors.NotAllowedInStatus(action=action, status=image.status)
    if image.status != status:
        images.image_update(image.id, {"status": status},
                            from_status=("active", "deactivated"))


def deactivate(image: ImageRecord) -> None:
    _set_active(image, "deactivate", "deactivated")


def reactivate(image: ImageRecord) -> None:
    _set_active(image, "reactivate", "active")


def add_member(image: ImageRecord, member_id: str) -> images.Member:
    if image.visibility != "shared":
        raise errors.NotShared()
    return images.member_create(image.id, member_id)


def members(ctx: RequestContext, image: ImageRecord) -> list[images.Member]:
    """The owner (and admins) see every member; a member sees only itself."""
    if ctx.is_admin or visibility.is_owner(ctx, image):
        return images.member_get_all(image.id)
    return images.member_get_all(image.id, ctx.project_id)


def member(ctx: RequestContext, image: ImageRecord, member_id: str) -> images.Member:
    found = [m for m in members(ctx, image) if m.member_id == member_id]
    if not found:
        raise errors.MemberNotFound(member_id=member_id, image_id=image.id)
    return found[0]


def add_tag(image: ImageRecord, tag: str) -> None:
    images.tag_add(image.id, tag)


def delete_tag(image: ImageRecord, tag: str) -> None:
    images.tag_delete(image.id, tag)
