"""The records one boot request creates, written in one transaction: the instances, their
metadata, tags and network info, each one's "create" action and request spec, and the
build awaiting a conductor (build_outbox, for `api_host`). One
commit instead of 2 × count + 1 keeps the API's share of the database's single writer
small, and a crash leaves either all of a boot's records or none (never an instance
without its spec)."""

from __future__ import annotations

import dataclasses
from typing import Any

from novalite import context as ctx_mod
from novalite.db.api import actions, build_outbox, info_caches, instances, request_specs
from novalite.db.session import core_writer, retry_on_deadlock
from novalite.objects.request_spec import RequestSpec


@retry_on_deadlock
def boot_records_create(ctx: ctx_mod.RequestContext, records: list[dict[str, Any]],
                        metadata: dict[str, str] | None, tags: list[str] | None,
                        spec: RequestSpec, api_host: str,
                        network_infos: dict[str, list[dict[str, Any]]] | None = None) -> None:
    with core_writer() as s:
        build_outbox.add(s, [values["uuid"] for values in records], api_host)
        for values in records:
            instances.add_instance(s, values, metadata, tags)
            if network_infos and values["uuid"] in network_infos:
                info_caches.add(s, values["uuid"], network_infos[values["uuid"]])
            actions.add_action(s, ctx, values["uuid"], "create")
            # each its own, as Nova keeps them: a later move of any one reads its own
            request_specs.add_request_spec(
                s, dataclasses.replace(spec, instance_uuid=values["uuid"]))
