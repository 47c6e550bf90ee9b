"""Server group views, per microversion.

2.1  — id, name, policies (a one-item list), members, metadata (always {}).
2.13 — project_id, user_id.
2.64 — policy and rules replace policies; metadata is gone.
"""

from __future__ import annotations

from typing import Any


def show(group: dict[str, Any], version: tuple[int, int]) -> dict[str, Any]:
    body: dict[str, Any] = {"id": group["uuid"], "name": group["name"]}
    if version >= (2, 64):
        body["policy"] = group["policy"]
        body["rules"] = group["rules"]
    else:
        body["policies"] = [group["policy"]] if group["policy"] else []
        body["metadata"] = {}
    body["members"] = list(group["members"])
    if version >= (2, 13):
        body["project_id"] = group["project_id"]
        body["user_id"] = group["user_id"]
    return body
