"""What a new cloud's identity needs, created idempotently (`novalite-manage bootstrap`
and every all-in-one start): the Default domain, the standard roles with their
implications, the admin, demo and service projects, the admin and demo users, the
catalog for this cloud's address, the Fernet keys and clouds.yaml.

Passwords come from [identity] admin_password / demo_password, else from a previous
bootstrap's clouds.yaml, else are generated; a user whose password differs is updated.
"""

from __future__ import annotations

import dataclasses
import logging
import secrets

from novalite.conf import CONF
from novalite.identity import (
    catalog,
    clouds_yaml,
    exception,
    fernet_keys,
    resource,
    roles,
    users,
)

LOG = logging.getLogger(__name__)

# prior role -> the role it implies
ROLE_CHAIN = [("admin", "manager"), ("manager", "member"), ("member", "reader")]
# user -> (project, role)
ACCOUNTS = {"admin": ("admin", "admin"), "demo": ("demo", "member")}
PROJECTS = ("admin", "demo", "service")
# type -> (name, path under the base URL)
SERVICES = {
    "identity": ("keystone", "/identity"),
    "compute": ("nova", "/compute/v2.1"),
    "image": ("glance", "/image"),
    "placement": ("placement", "/placement"),
    "network": ("neutron", "/networking"),
    # as devstack registers Cinder: both types, the URL without a project id (3.67)
    "block-storage": ("cinder", "/volume/v3"),
    "volumev3": ("cinderv3", "/volume/v3"),
}
INTERFACES = ("public", "internal", "admin")


@dataclasses.dataclass
class Result:
    clouds_yaml: str
    passwords: dict[str, str]


def base_url(port: int) -> str:
    """Where clients reach this cloud: [api] public_endpoint, else the local port."""
    if CONF.api.public_endpoint:
        return CONF.api.public_endpoint.rstrip("/")
    return f"http://127.0.0.1:{port}"


def _ensure_domain() -> None:
    try:
        resource.get_domain(resource.DEFAULT_DOMAIN_ID)
    except exception.NotFound:
        resource.create_domain("Default", "The default domain",
                               domain_id=resource.DEFAULT_DOMAIN_ID)


def _ensure_roles() -> dict[str, str]:
    names = {name for pair in ROLE_CHAIN for name in pair}
    ids = {}
    for name in sorted(names):
        found = roles.list_roles(name=name)
        ids[name] = found[0]["id"] if found else roles.create_role(name)["id"]
    for prior, implied in ROLE_CHAIN:
        roles.create_implied_role(ids[prior], ids[implied])
    return ids


def _ensure_project(name: str) -> str:
    try:
        return resource.get_project_by_name(name, resource.DEFAULT_DOMAIN_ID)["id"]
    except exception.NotFound:
        return resource.create_project(name, description=f"Bootstrap project {name}")["id"]


def _password(name: str, saved: dict[str, str]) -> str:
    return (getattr(CONF.identity, f"{name}_password") or saved.get(name)
            or secrets.token_urlsafe(16))


def _ensure_user(name: str, password: str, project_id: str) -> str:
    try:
        user = users.get_user_by_name(name, resource.DEFAULT_DOMAIN_ID)
    except exception.NotFound:
        return users.create_user(name, password=password, default_project_id=project_id)["id"]
    if not users.password_matches(user["id"], password):
        users.update_user(user["id"], {"password": password, "enabled": True})
    return user["id"]


def _ensure_catalog(base: str) -> None:
    catalog.ensure_region(clouds_yaml.REGION)
    for type_, (name, suffix) in SERVICES.items():
        urls = dict.fromkeys(INTERFACES, base + suffix)
        catalog.ensure_service(type_, name, urls, clouds_yaml.REGION)


def project_ids(*names: str) -> list[str]:
    """The ids of bootstrap projects, by name (the network layout's owners)."""
    return [resource.get_project_by_name(n, resource.DEFAULT_DOMAIN_ID)["id"] for n in names]


def bootstrap(base: str) -> Result:
    fernet_keys.setup()
    _ensure_domain()
    role_ids = _ensure_roles()
    projects = {name: _ensure_project(name) for name in PROJECTS}
    saved = clouds_yaml.saved_passwords()
    passwords = {}
    for user, (project, role) in ACCOUNTS.items():
        passwords[user] = _password(user, saved)
        user_id = _ensure_user(user, passwords[user], projects[project])
        roles.add_grant(user_id, projects[project], role_ids[role])
    _ensure_catalog(base)
    path = clouds_yaml.write(base, passwords)
    LOG.info("Identity bootstrapped for %s; credentials in %s", base, path)
    return Result(path, passwords)
