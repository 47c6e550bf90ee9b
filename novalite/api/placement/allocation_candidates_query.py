"""The query string of GET /allocation_candidates, read as upstream Placement reads it at
each microversion: validated against the version's schema, then parsed into request
groups (by suffix) and request-wide parameters, with upstream's messages and codes."""

from __future__ import annotations

import copy
import re
import uuid as uuid_mod
from typing import Any

from novalite.api.faults import HTTPFault
from novalite.api.placement import common
from novalite.placement import errors
from novalite.placement.candidates.request import RequestGroup, RequestWideParams

Version = tuple[int, int]

_GROUP = r"[1-9][0-9]*"
_GROUP_1_33 = r"[a-zA-Z0-9_-]{1,64}"
_PREFIXES = ("resources", "required", "member_of", "in_tree")


def _schemas() -> list[tuple[Version, dict]]:
    """(first version, schema), newest first: each version's additions on the last."""
    s: dict[str, Any] = {"type": "object", "properties": {"resources": {"type": "string"}},
         "required": ["resources"], "additionalProperties": False}
    out = [((1, 10), copy.deepcopy(s))]
    s["properties"]["limit"] = {"type": ["integer", "string"], "pattern": "^[1-9][0-9]*$",
                                "minimum": 1, "minLength": 1}
    out.append(((1, 16), copy.deepcopy(s)))
    s["properties"]["required"] = {"type": ["string"]}
    out.append(((1, 17), copy.deepcopy(s)))
    s["properties"]["member_of"] = {"type": ["string"]}
    out.append(((1, 21), copy.deepcopy(s)))
    for key in ("resources", "required", "member_of"):
        del s["properties"][key]
    del s["required"]
    s["patternProperties"] = {f"^{p}({_GROUP})?$": {"type": "string"}
                              for p in _PREFIXES[:3]}
    s["properties"]["group_policy"] = {"type": "string", "enum": ["none", "isolate"]}
    out.append(((1, 25), copy.deepcopy(s)))
    s["patternProperties"][f"^in_tree({_GROUP})?$"] = {"type": "string"}
    out.append(((1, 31), copy.deepcopy(s)))
    s["patternProperties"] = {f"^{p}({_GROUP_1_33})?$": {"type": "string"}
                              for p in _PREFIXES}
    out.append(((1, 33), copy.deepcopy(s)))
    s["properties"]["root_required"] = {"type": ["string"]}
    out.append(((1, 35), copy.deepcopy(s)))
    s["properties"]["same_subtree"] = {"type": ["string"]}
    out.append(((1, 36), copy.deepcopy(s)))
    return out[::-1]


SCHEMAS = _schemas()


def bad(message: str, code: str | None = None) -> HTTPFault:
    return HTTPFault(400, message, code)


def validate(items: list[tuple[str, str]], version: Version) -> None:
    """Against the version's schema, the last value of each key (as upstream)."""
    common.validate_query(dict(items), next(s for first, s in SCHEMAS if version >= first))


def _values(items: list[tuple[str, str]], key: str) -> list[str]:
    return [v for k, v in items if k == key]


def resources(value: str) -> dict[str, int]:
    form = "?resources=VCPU:2,MEMORY_MB:1024"
    if value.strip() == "":
        raise bad("Badly formed resources parameter. Expected resources query string "
                  f"parameter in form: {form}. Got: empty string.")
    out = {}
    for item in value.split(","):
        parts = item.split(":")
        if len(parts) != 2:
            raise bad("Badly formed resources parameter. Expected resources query "
                      f"string parameter in form: {form}. Got: {item}.")
        rc, amount = parts
        try:
            number = int(amount)
        except ValueError:
            raise bad(f"Requested resource {rc} expected positive integer amount. "
                      f"Got: {amount}.") from None
        if number < 1:
            raise bad(f"Requested resource {rc} requires amount >= 1. Got: {number}.")
        out[rc] = number
    return out


def traits(value: str, allow_forbidden: bool,
           allow_any: bool) -> tuple[list[frozenset[str]], set[str]]:
    """One `required` value: (AND of OR-sets, forbidden)."""
    if value.startswith("in:"):
        if not allow_any:
            raise bad("Invalid query string parameters: The format "
                      "'in:HW_CPU_X86_VMX,CUSTOM_MAGIC' only supported since "
                      f"microversion 1.39. Got: {value}")
        any_of = {t.strip() for t in value[3:].split(",")}
        if not all(any_of):
            raise bad("Invalid query string parameters: Expected 'required' parameter "
                      "value of the form: in:HW_CPU_X86_VMX,CUSTOM_MAGIC. Got an empty "
                      f"trait in: {value}")
        if any(t.startswith("!") for t in any_of):
            raise bad("Invalid query string parameters: The format "
                      "'in:HW_CPU_X86_VMX,CUSTOM_MAGIC' does not support forbidden "
                      f"traits. Got: {value}")
        return [frozenset(any_of)], set()
    names = [t.strip() for t in value.split(",")]
    forbidden = {t.lstrip("!") for t in names if t.startswith("!")}
    if not all(names) or not all(forbidden):
        form = "HW_CPU_X86_VMX,!CUSTOM_MAGIC" if allow_forbidden else (
            "HW_CPU_X86_VMX,CUSTOM_MAGIC")
        raise bad("Invalid query string parameters: Expected 'required' parameter value "
                  f"of the form: {form}. Got an empty trait in: {value}")
    if forbidden and not allow_forbidden:
        raise bad("Invalid query string parameters: Expected 'required' parameter value "
                  f"of the form: HW_CPU_X86_VMX,CUSTOM_MAGIC. Got: {value}")
    return [frozenset([t]) for t in names if not t.startswith("!")], forbidden


def _is_uuid(value: str) -> bool:
    try:
        uuid_mod.UUID(value)
    except ValueError:
        return False
    return True


def member_of(value: str) -> tuple[set[str], set[str]]:
    """One `member_of` value: (any-of required, all forbidden)."""
    if "," in value and not value.startswith(("in:", "!in:")):
        raise bad("Multiple values for 'member_of' must be prefixed with the 'in:' or "
                  f"'!in:' keyword using the valid microversion. Got: {value}")
    required: set[str] = set()
    forbidden: set[str] = set()
    if value.startswith("!in:"):
        forbidden = set(value[4:].split(","))
    elif value.startswith("!"):
        forbidden = {value[1:]}
    elif value.startswith("in:"):
        required = set(value[3:].split(","))
    else:
        required = {value}
    for agg in sorted(required | forbidden):
        if not _is_uuid(agg):
            raise bad("Invalid query string parameters: Expected 'member_of' parameter "
                      f"to contain valid UUID(s). Got: {agg}")
    return required, forbidden


def _group_traits(items, suffix: str, version: Version, group: RequestGroup) -> None:
    values = _values(items, "required" + suffix)
    if version < (1, 39):
        values = values[-1:]  # before 1.39 only the last one counted
    group.required, group.forbidden = [], set()
    for value in values:
        req, forb = traits(value, version >= (1, 22), version >= (1, 39))
        group.required += req
        group.forbidden |= forb


def _group_member_of(items, suffix: str, version: Version, group: RequestGroup) -> None:
    values = _values(items, "member_of" + suffix)
    if version < (1, 24) and len(values) > 1:
        raise bad(f"Multiple member_of{suffix} parameters are not supported")
    group.member_of, group.forbidden_aggs = [], set()
    for value in values:
        req, forb = member_of(value)
        if req:
            group.member_of.append(req)
        if forb and version < (1, 32):
            raise bad(f"Forbidden member_of{suffix} parameters are not supported in the "
                      "specified microversion")
        group.forbidden_aggs |= forb


def _in_tree(value: str) -> str:
    if not _is_uuid(value.strip()):
        raise bad("Invalid query string parameters: Expected 'in_tree' parameter to be "
                  f"a format of uuid. Got: {value}")
    return value.strip()


def groups(items: list[tuple[str, str]], version: Version) -> dict[str, RequestGroup]:
    suffix_pattern = _GROUP_1_33 if version >= (1, 33) else _GROUP
    pattern = re.compile(rf"^({'|'.join(_PREFIXES)})({suffix_pattern})?$")
    out: dict[str, RequestGroup] = {}
    for key, value in items:
        match = pattern.match(key)
        if not match:
            continue
        prefix, suffix = match.group(1), match.group(2) or ""
        group = out.setdefault(suffix, RequestGroup(suffix=suffix))
        if prefix == "resources":
            group.resources = resources(value)
        elif prefix == "required":
            _group_traits(items, suffix, version, group)
        elif prefix == "member_of":
            _group_member_of(items, suffix, version, group)
        else:
            group.in_tree = _in_tree(value)
    return out


def request_wide(items: list[tuple[str, str]]) -> RequestWideParams:
    params = RequestWideParams()
    if limit := _values(items, "limit"):
        params.limit = int(limit[0])
    if policy := _values(items, "group_policy"):
        params.group_policy = policy[0]
    if root := _values(items, "root_required"):
        if len(root) > 1:
            raise bad("Query parameter 'root_required' may be specified only once.",
                      errors.ILLEGAL_DUPLICATE_QUERYPARAM)
        required, forbidden = traits(root[0], True, False)
        params.root_required = {t for any_of in required for t in any_of}
        params.root_forbidden = forbidden
        if conflicts := params.root_required & params.root_forbidden:
            raise bad("Conflicting required and forbidden traits found in root_required: "
                      + ", ".join(sorted(conflicts)), errors.QUERYPARAM_BAD_VALUE)
    for value in _values(items, "same_subtree"):
        suffixes = {s.strip() for s in value.split(",")}
        if "" in suffixes:
            raise bad("Empty string (unsuffixed group) can not be specified in "
                      "`same_subtree` ", errors.QUERYPARAM_BAD_VALUE)
        params.same_subtrees.append(suffixes)
    return params


def _check_same_subtree(by_suffix: dict[str, RequestGroup],
                        params: RequestWideParams) -> None:
    resourceless = sorted(s for s, g in by_suffix.items() if not g.resources)
    in_subtrees = set().union(*params.same_subtrees)
    if len(resourceless) == len(by_suffix):
        raise bad("There must be at least one resources or resources[$S] parameter.",
                  errors.QUERYPARAM_MISSING_VALUE)
    if stray := [s for s in resourceless if s not in in_subtrees]:
        raise bad("Resourceless suffixed group request should be specified in "
                  f"`same_subtree` query param: bad group(s) - {stray}.",
                  errors.QUERYPARAM_BAD_VALUE)
    if unknown := [s for s in sorted(in_subtrees) if s not in by_suffix]:
        raise bad(f"Real suffixes should be specified in `same_subtree`: {unknown} not "
                  f"found in {list(by_suffix)}.", errors.QUERYPARAM_BAD_VALUE)


def _check_orphans(by_suffix: dict[str, RequestGroup]) -> None:
    if orphans := [f"required{s}" for s, g in by_suffix.items()
                   if g.required and not g.resources]:
        raise bad("All traits parameters must be associated with resources.  Found the "
                  "following orphaned traits keys: " + ", ".join(orphans))
    if orphans := [f"member_of{s}" for s, g in by_suffix.items()
                   if not g.resources and (g.member_of or g.forbidden_aggs)]:
        raise bad("All member_of parameters must be associated with resources. Found "
                  "the following orphaned member_of keys: " + ", ".join(orphans))
    if not all(g.resources for g in by_suffix.values()):
        raise bad("All request groups must specify resources.")
    if not by_suffix:
        raise bad("At least one request group (`resources` or `resources{$S}`) is "
                  "required.")


def _check_conflicts(by_suffix: dict[str, RequestGroup]) -> None:
    conflicts = sorted(f"required{s}: ({', '.join(sorted(any_of))})"
                       for s, g in by_suffix.items() for any_of in g.required
                       if any_of <= g.forbidden)
    if conflicts:
        raise bad("Conflicting required and forbidden traits found in the following "
                  "traits keys: " + ", ".join(conflicts))


def parse(items: list[tuple[str, str]],
          version: Version) -> tuple[dict[str, RequestGroup], RequestWideParams]:
    """The request groups by suffix and the request-wide parameters, or a 400."""
    validate(items, version)
    params = request_wide(items)
    by_suffix = groups(items, version)
    if version >= (1, 36):
        _check_same_subtree(by_suffix, params)
    else:
        _check_orphans(by_suffix)
    if version >= (1, 22):
        _check_conflicts(by_suffix)
    if not params.group_policy and sum(1 for s in by_suffix if s) > 1:
        raise bad('The "group_policy" parameter is required when specifying more than '
                  'one "resources{N}" parameter.')
    return by_suffix, params
