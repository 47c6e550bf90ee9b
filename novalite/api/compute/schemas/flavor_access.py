"""Bodies of the flavor access actions (POST /flavors/{id}/action): Nova's schemas."""

from __future__ import annotations


def _action(name: str) -> dict:
    # `tenant` as long as the project_id column of the flavor_projects table
    tenant = {"type": "string", "minLength": 1, "maxLength": 255}
    return {
        "type": "object",
        "properties": {name: {"type": "object", "properties": {"tenant": tenant},
                              "required": ["tenant"], "additionalProperties": False}},
        "required": [name],
        "additionalProperties": False,
    }


add_tenant_access = _action("addTenantAccess")
remove_tenant_access = _action("removeTenantAccess")
