"""The handlers every network resource shares (list, show, create, update, delete and
its tags), built from a `Resource` that names the data-layer functions. Each resource's
module (networks.py, ports.py, ...) declares one; routes.py maps paths onto them.

Every handler: looks the resource up in the caller's scope (another project's resource is
a 404), checks Neutron's policy rule on it (and `<action>_<resource>:<attribute>` for
each attribute that has its own rule), honours `If-Match: revision_number=N` on writes,
and hides the attributes whose `get_<resource>:<attribute>` rule the caller fails."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from typing import Any

from sqlalchemy.orm import Session

from novalite.api import policy
from novalite.api.faults import HTTPFault
from novalite.api.network import attributes, listing
from novalite.api.network.policies import DEFAULTS as RULES
from novalite.api.request import ApiRequest, ApiResponse
from novalite.network import common, errors, networks, transaction
from novalite.network.records import Record
from novalite.network.scope import Scope


def _row_target(s: Session, row: Any) -> dict[str, Any]:
    return {"project_id": row.project_id}


def _new_target(s: Session, req: ApiRequest, values: dict[str, Any]) -> dict[str, Any]:
    return {"project_id": values["project_id"]}


@dataclasses.dataclass(frozen=True)
class Resource:
    name: str  # body key and policy suffix: "network"
    collection: str  # response key: "networks"
    get: Callable[[Session, Scope, str], Any]
    record: Callable[[Session, Any], Record]
    list: Callable[[Session, Scope, ApiRequest], list[Record]]
    create: Callable[[Session, ApiRequest, dict[str, Any]], Record]
    update: Callable[[Session, ApiRequest, Any, dict[str, Any]], Record]
    delete: Callable[[Session, ApiRequest, Any], None]
    # the policy target of a row: its project, and its network's owner where it matters
    target: Callable[[Session, Any], dict[str, Any]] = _row_target
    # the policy target of a create: its project, and the network's owner for a port
    new_target: Callable[[Session, ApiRequest, dict[str, Any]], dict[str, Any]] = _new_target
    id_param: str = "id"
    list_writes: bool = False  # listing may create (a project's default security group)


def scope(req: ApiRequest) -> Scope:
    return Scope.of(req.ctx)


def authorize(req: ApiRequest, rule: str, target: dict[str, Any]) -> None:
    target = {"project_id": req.ctx.project_id, **target}
    if not policy.check_target(req.ctx, rule, target):
        raise errors.PolicyNotAuthorized(action=rule)


def authorize_attributes(req: ApiRequest, action: str, name: str, values: dict[str, Any],
                         target: dict[str, Any]) -> None:
    """`create_port:binding:host_id` and its kind, for each such attribute given."""
    for key, value in values.items():
        rule = f"{action}_{name}:{key}"
        if rule in RULES:
            authorize(req, rule, target)
        if isinstance(value, list):  # fixed_ips with ip_address
            for sub in (f"{rule}:{k}" for item in value if isinstance(item, dict)
                        for k in item):
                if sub in RULES:
                    authorize(req, sub, target)
        elif isinstance(value, dict):  # external_gateway_info:external_fixed_ips
            for sub in (f"{rule}:{k}" for k in value):
                if sub in RULES:
                    authorize(req, sub, target)


def shown(req: ApiRequest, name: str, record: Record) -> Record:
    """The record less the attributes the caller may not read."""
    hidden = _hidden_keys(req, name, record.get("project_id"))
    return {k: v for k, v in record.items() if k not in hidden} if hidden else record


@functools.cache
def _read_rules(name: str) -> dict[str, str]:
    """The rules of the attributes that have their own to be read, and the attribute
    each guards: `get_port:binding:host_id` -> `binding:host_id`."""
    prefix = f"get_{name}:"
    return {rule: rule[len(prefix):] for rule in RULES if rule.startswith(prefix)}


def _hidden_keys(req: ApiRequest, name: str, project_id: str | None = None) -> set[str]:
    """The attributes the caller may not read on a resource of `project_id`; on every
    record of a list when None (checked once: the rules read no row)."""
    rules = _read_rules(name)
    passed = policy.passing(req.ctx, rules, {"project_id": project_id})
    return {key for rule, key in rules.items() if rule not in passed}


def network_target(s: Session, req: ApiRequest, values: dict[str, Any]) -> dict[str, Any]:
    """The policy target of a new port or subnet, after Neutron's own check: a project
    other than the admin's puts one on a network it does not own only when the network
    is shared; else the network is hidden from it (a 404, even when external)."""
    network = networks.brief(s, scope(req), values["network_id"])
    if not (scope(req).is_admin or network.shared
            or network.project_id == values["project_id"]):
        raise HTTPFault(404, "The resource could not be found.")
    return {"project_id": values["project_id"], "network:project_id": network.project_id}


def _lookup(s: Session, req: ApiRequest, res: Resource, action: str) -> Any:
    row = res.get(s, scope(req), req.params[res.id_param])
    authorize(req, f"{action}_{res.name}", res.target(s, row))
    return row


def _listed(s: Session, req: ApiRequest, res: Resource) -> list[Record]:
    """The records the caller sees; a page's marker must be one of them (Neutron's
    404 of the resource else)."""
    marker = req.query.get("marker")
    if marker:
        res.get(s, scope(req), marker)
    return res.list(s, scope(req), req)


def index(res: Resource) -> Callable[[ApiRequest], ApiResponse]:
    def handler(req: ApiRequest) -> ApiResponse:
        authorize(req, f"get_{res.name}", {})
        run = transaction.write if res.list_writes else transaction.read
        found = run(lambda s: _listed(s, req, res))
        hidden = _hidden_keys(req, res.name)
        if hidden:
            found = [{k: v for k, v in r.items() if k not in hidden} for r in found]
        return ApiResponse(200, listing.apply(req, found, res.collection))
    return handler


def show(res: Resource) -> Callable[[ApiRequest], ApiResponse]:
    def handler(req: ApiRequest) -> ApiResponse:
        found = transaction.read(lambda s: res.record(s, _lookup(s, req, res, "get")))
        return ApiResponse(200, {res.name: listing.fields(req, shown(req, res.name, found))})
    return handler


def create(res: Resource) -> Callable[[ApiRequest], ApiResponse]:
    def handler(req: ApiRequest) -> ApiResponse:
        if isinstance(req.body, dict) and res.collection in req.body:
            raise HTTPFault(400, "Bulk create is not supported; create one at a time")
        values = attributes.parse(req.body, res.name, creating=True)
        values.setdefault("project_id", req.ctx.project_id or "")
        tags = values.pop("tags", None)

        def work(s: Session) -> Record:
            target = res.new_target(s, req, values)
            authorize(req, f"create_{res.name}", target)
            authorize_attributes(req, "create", res.name, values, target)
            made = res.create(s, req, dict(values))  # a retry must see what was asked
            if tags:
                row = res.get(s, scope(req), made["id"])
                row.tags = list(dict.fromkeys(tags))
                s.flush()
                made = res.record(s, row)
            return made
        made = transaction.write(work)
        return ApiResponse(201, {res.name: shown(req, res.name, made)})
    return handler


def update(res: Resource) -> Callable[[ApiRequest], ApiResponse]:
    def handler(req: ApiRequest) -> ApiResponse:
        values = attributes.parse(req.body, res.name, creating=False)

        def work(s: Session) -> Record:
            row = _lookup(s, req, res, "update")
            authorize_attributes(req, "update", res.name, values, res.target(s, row))
            common.check_revision(row, req.headers.get("if-match"))
            return res.update(s, req, row, dict(values))  # a retry must see what was asked
        return ApiResponse(200, {res.name: shown(req, res.name, transaction.write(work))})
    return handler


def delete(res: Resource) -> Callable[[ApiRequest], ApiResponse]:
    def handler(req: ApiRequest) -> ApiResponse:
        def work(s: Session) -> None:
            row = _lookup(s, req, res, "delete")
            common.check_revision(row, req.headers.get("if-match"))
            res.delete(s, req, row)
        transaction.write(work)
        return ApiResponse(204)
    return handler


# Tags (Neutron's tag extension): /{collection}/{id}/tags[/{tag}]

def _tag_work(req: ApiRequest, res: Resource, change: Callable[[list[str]], list[str]],
              action: str = "update") -> list[str]:
    def work(s: Session) -> list[str]:
        row = _lookup(s, req, res, action)
        new = change(list(row.tags or []))
        if action == "update" and new != list(row.tags or []):
            row.tags = new
            common.bump(row)
        return new
    return transaction.write(work) if action == "update" else transaction.read(work)


def _tag_list(body: Any) -> list[str]:
    if not isinstance(body, dict) or not isinstance(body.get("tags"), list) or not all(
            isinstance(t, str) and 0 < len(t) <= 255 and "," not in t for t in body["tags"]):
        raise HTTPFault(400, "Invalid input for tags: a list of strings is required")
    return list(dict.fromkeys(body["tags"]))


def tags_index(res: Resource) -> Callable[[ApiRequest], ApiResponse]:
    def handler(req: ApiRequest) -> ApiResponse:
        return ApiResponse(200, {"tags": _tag_work(req, res, lambda t: t, "get")})
    return handler


def tags_replace(res: Resource) -> Callable[[ApiRequest], ApiResponse]:
    def handler(req: ApiRequest) -> ApiResponse:
        wanted = _tag_list(req.body)
        return ApiResponse(200, {"tags": _tag_work(req, res, lambda _: wanted)})
    return handler


def tags_clear(res: Resource) -> Callable[[ApiRequest], ApiResponse]:
    def handler(req: ApiRequest) -> ApiResponse:
        _tag_work(req, res, lambda _: [])
        return ApiResponse(204)
    return handler


def _missing_tag(tag: str) -> errors.NotFound:
    return errors.NotFound(f"Tag {tag} could not be found.")


def tag_show(res: Resource) -> Callable[[ApiRequest], ApiResponse]:
    def handler(req: ApiRequest) -> ApiResponse:
        if req.params["tag"] not in _tag_work(req, res, lambda t: t, "get"):
            raise _missing_tag(req.params["tag"])
        return ApiResponse(204)
    return handler


def tag_add(res: Resource) -> Callable[[ApiRequest], ApiResponse]:
    def handler(req: ApiRequest) -> ApiResponse:
        tag = req.params["tag"]
        if len(tag) > 255 or "," in tag:
            raise HTTPFault(400, f"Invalid tag {tag}")
        _tag_work(req, res, lambda t: t if tag in t else [*t, tag])
        return ApiResponse(201)
    return handler


def tag_remove(res: Resource) -> Callable[[ApiRequest], ApiResponse]:
    def handler(req: ApiRequest) -> ApiResponse:
        tag = req.params["tag"]

        def change(tags: list[str]) -> list[str]:
            if tag not in tags:
                raise _missing_tag(tag)
            return [t for t in tags if t != tag]
        _tag_work(req, res, change)
        return ApiResponse(204)
    return handler


def routes(res: Resource, path: str) -> list[tuple]:
    """The route table rows of a resource at /v2.0/<path>."""
    item = f"/v2.0/{path}/{{{res.id_param}}}"
    return [
        (f"/v2.0/{path}", "GET", index(res), True),
        (f"/v2.0/{path}", "POST", create(res), True),
        (item, "GET", show(res), True),
        (item, "PUT", update(res), True),
        (item, "DELETE", delete(res), True),
        (f"{item}/tags", "GET", tags_index(res), True),
        (f"{item}/tags", "PUT", tags_replace(res), True),
        (f"{item}/tags", "DELETE", tags_clear(res), True),
        (f"{item}/tags/{{tag}}", "GET", tag_show(res), True),
        (f"{item}/tags/{{tag}}", "PUT", tag_add(res), True),
        (f"{item}/tags/{{tag}}", "DELETE", tag_remove(res), True),
    ]
