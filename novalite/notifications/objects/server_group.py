"""ServerGroupPayload: server_group.create/delete/add_member, and a request spec's group."""

from __future__ import annotations

from typing import Any

from novalite.notifications.objects.base import Payload, payload


@payload
class ServerGroupPayload(Payload):
    NAME = "ServerGroupPayload"
    VERSION = "1.1"  # 1.1: policies deprecated for policy and rules

    uuid: str
    name: str | None
    user_id: str | None
    project_id: str | None
    policies: list[str] | None
    members: list[str] | None
    hosts: list[str] | None
    policy: str | None
    rules: dict[str, str]

    @classmethod
    def make(cls, uuid: str, name: str | None, user_id: str | None,
             project_id: str | None, policy: str | None, rules: dict[str, Any],
             members: list[str], hosts: list[str] | None = None) -> ServerGroupPayload:
        """Rules' values as strings (Nova's field is a dict of strings); `hosts` null
        unless the emitter knows them, as Nova leaves them unloaded."""
        return cls(uuid=uuid, name=name, user_id=user_id, project_id=project_id,
                   policies=[policy] if policy else [], members=list(members), hosts=hosts,
                   policy=policy, rules={k: str(v) for k, v in rules.items()})
