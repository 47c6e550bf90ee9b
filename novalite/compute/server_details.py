"""A server's metadata and tags, with Nova's preconditions: metadata changes need an
unlocked server (admins excepted) at rest in a running or stopped state and count against
the `metadata_items` quota; tags need a server in such a state and stop at 50."""

from __future__ import annotations

from novalite.compute import guards, quotas
from novalite.context import RequestContext
from novalite.db.api import instance_details
from novalite.objects import states
from novalite.objects.instance import Instance

MAX_TAG_COUNT = 50
_AT_REST = (states.ACTIVE, states.PAUSED, states.SUSPENDED, states.STOPPED)


def _check_metadata_change(ctx: RequestContext, instance: Instance, action: str) -> None:
    guards.check_lock(ctx, instance)
    guards.check_state(instance, action, _AT_REST)


def update_metadata(ctx: RequestContext, instance: Instance, metadata: dict[str, str],
                    replace: bool) -> dict[str, str | None]:
    _check_metadata_change(ctx, instance, "update metadata")
    return instance_details.metadata_update(
        instance.uuid, metadata, replace,
        lambda wanted: quotas.check_metadata(wanted, instance.project_id))


def delete_metadata(ctx: RequestContext, instance: Instance, key: str) -> None:
    _check_metadata_change(ctx, instance, "delete metadata")
    instance_details.metadata_delete(instance.uuid, key)


def check_taggable(instance: Instance, action: str) -> None:
    guards.check_state(instance, action, _AT_REST, task_states=(instance.task_state,),
                       must_have_launched=False)


def set_tags(instance: Instance, tags: list[str]) -> list[str]:
    check_taggable(instance, "update tags")
    return instance_details.tags_set(instance.uuid, tags)


def add_tag(instance: Instance, tag: str) -> bool:
    check_taggable(instance, "update tag")
    return instance_details.tag_add(instance.uuid, tag, MAX_TAG_COUNT)


def delete_tag(instance: Instance, tag: str | None) -> int:
    check_taggable(instance, "delete tag" if tag is not None else "delete tags")
    return instance_details.tag_delete(instance.uuid, tag)
