"""/v2.0/security-groups and /v2.0/security-group-rules."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from novalite.api.network.resource import Resource, scope
from novalite.api.request import ApiRequest
from novalite.network import common, records, security_groups
from novalite.network.records import Record


def _create_rule(s: Session, req: ApiRequest, values: dict[str, Any]) -> Record:
    return security_groups.create_rule(s, scope(req), values.pop("project_id"), values)


def _update_rule(s: Session, req: ApiRequest, row: Any, values: dict[str, Any]) -> Record:
    common.update(row, values)
    return records.security_group_rule(row)


GROUPS = Resource(
    name="security_group", collection="security_groups", get=security_groups.get,
    record=security_groups.record,
    list=lambda s, sc, req: security_groups.list_records(s, sc),
    create=lambda s, req, values: security_groups.create(s, values.pop("project_id"),
                                                         values),
    update=lambda s, req, row, values: security_groups.update(s, row, values),
    delete=lambda s, req, row: security_groups.delete(s, scope(req), row),
    list_writes=True)

RULES = Resource(
    name="security_group_rule", collection="security_group_rules",
    get=security_groups.get_rule,
    record=lambda s, row: records.security_group_rule(row),
    list=lambda s, sc, req: security_groups.list_rules(s, sc), create=_create_rule,
    update=_update_rule, delete=lambda s, req, row: s.delete(row), list_writes=True)
