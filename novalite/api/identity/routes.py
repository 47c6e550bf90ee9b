"""The identity API's route table: (path, method, handler, authenticated)."""

from __future__ import annotations

from novalite.api.identity import (
    assignments,
    auth_tokens,
    catalog,
    domains,
    faults,
    projects,
    roles,
    users,
    versions,
)
from novalite.api.profile import ApiProfile

PROFILE = ApiProfile(mount="/identity", fault=faults.render)

_GRANT = "/v3/projects/{project_id}/users/{user_id}/roles/{role_id}"
_IMPLIED = "/v3/roles/{prior_role_id}/implies/{implied_role_id}"

ROUTES = [
    ("/", "GET", versions.root, False),
    ("/v3", "GET", versions.show_v3, False),
    ("/v3/", "GET", versions.show_v3, False),
    ("/v3/auth/tokens", "POST", auth_tokens.issue, False),
    ("/v3/auth/tokens", "GET", auth_tokens.validate, True),
    ("/v3/auth/tokens", "HEAD", auth_tokens.check, True),
    ("/v3/auth/tokens", "DELETE", auth_tokens.revoke, True),
    ("/v3/auth/catalog", "GET", auth_tokens.auth_catalog, True),
    ("/v3/auth/projects", "GET", auth_tokens.auth_projects, True),
    ("/v3/domains", "GET", domains.index, True),
    ("/v3/domains", "POST", domains.create, True),
    ("/v3/domains/{domain_id}", "GET", domains.show, True),
    ("/v3/projects", "GET", projects.index, True),
    ("/v3/projects", "POST", projects.create, True),
    ("/v3/projects/{project_id}", "GET", projects.show, True),
    ("/v3/projects/{project_id}", "PATCH", projects.update, True),
    ("/v3/projects/{project_id}", "DELETE", projects.delete, True),
    ("/v3/projects/{project_id}/users/{user_id}/roles", "GET", assignments.list_grants, True),
    (_GRANT, "PUT", assignments.grant, True),
    (_GRANT, "HEAD", assignments.check, True),
    (_GRANT, "GET", assignments.check, True),
    (_GRANT, "DELETE", assignments.revoke, True),
    ("/v3/role_assignments", "GET", assignments.role_assignments, True),
    ("/v3/users", "GET", users.index, True),
    ("/v3/users", "POST", users.create, True),
    ("/v3/users/{user_id}", "GET", users.show, True),
    ("/v3/users/{user_id}", "PATCH", users.update, True),
    ("/v3/users/{user_id}", "DELETE", users.delete, True),
    ("/v3/users/{user_id}/password", "POST", users.change_password, True),
    ("/v3/users/{user_id}/projects", "GET", users.projects, True),
    ("/v3/roles", "GET", roles.index, True),
    ("/v3/roles", "POST", roles.create, True),
    ("/v3/roles/{role_id}", "GET", roles.show, True),
    ("/v3/roles/{role_id}", "PATCH", roles.update, True),
    ("/v3/roles/{role_id}", "DELETE", roles.delete, True),
    ("/v3/roles/{prior_role_id}/implies", "GET", roles.list_implied, True),
    (_IMPLIED, "PUT", roles.create_implied, True),
    (_IMPLIED, "GET", roles.show_implied, True),
    (_IMPLIED, "HEAD", roles.check_implied, True),
    (_IMPLIED, "DELETE", roles.delete_implied, True),
    ("/v3/role_inferences", "GET", roles.inferences, True),
    ("/v3/services", "GET", catalog.list_services, True),
    ("/v3/services/{service_id}", "GET", catalog.show_service, True),
    ("/v3/endpoints", "GET", catalog.list_endpoints, True),
    ("/v3/endpoints/{endpoint_id}", "GET", catalog.show_endpoint, True),
    ("/v3/regions", "GET", catalog.list_regions, True),
    ("/v3/regions/{region_id}", "GET", catalog.show_region, True),
]
