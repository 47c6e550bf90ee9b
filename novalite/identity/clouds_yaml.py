"""<state_path>/clouds.yaml: how users (and their `openstack` CLI) learn to reach the
cloud and the bootstrap passwords."""

from __future__ import annotations

import os

import yaml

from novalite.conf import CONF

REGION = "RegionOne"


def path() -> str:
    return os.path.join(CONF.state_path, "clouds.yaml")


def _cloud(auth_url: str, user: str, project: str, password: str) -> dict:
    return {"auth": {"auth_url": auth_url, "username": user, "password": password,
                     "project_name": project, "user_domain_name": "Default",
                     "project_domain_name": "Default"},
            "region_name": REGION, "identity_api_version": 3, "interface": "public"}


def write(base_url: str, passwords: dict[str, str]) -> str:
    """Clouds `novalite` (demo) and `novalite-admin`; readable by the owner only."""
    auth_url = f"{base_url}/identity/v3"
    clouds = {"clouds": {
        "novalite": _cloud(auth_url, "demo", "demo", passwords["demo"]),
        "novalite-admin": _cloud(auth_url, "admin", "admin", passwords["admin"]),
    }}
    target = path()
    os.makedirs(os.path.dirname(target), exist_ok=True)
    tmp = target + ".tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        yaml.safe_dump(clouds, f, default_flow_style=False, sort_keys=False)
    os.replace(tmp, target)
    return target


def saved_passwords() -> dict[str, str]:
    """The passwords a previous bootstrap wrote, by user name."""
    try:
        with open(path()) as f:
            clouds = (yaml.safe_load(f) or {}).get("clouds", {})
    except (OSError, yaml.YAMLError, AttributeError):
        return {}
    found = {}
    for cloud in clouds.values():
        auth = cloud.get("auth", {}) if isinstance(cloud, dict) else {}
        if auth.get("username") and auth.get("password"):
            found[auth["username"]] = auth["password"]
    return found
