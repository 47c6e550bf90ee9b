"""What a user brings to the acceptance scenarios: an SSH public key, and a clouds.yaml
that also knows a user the scenario created."""

from __future__ import annotations

from pathlib import Path

import yaml
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519


def public_key() -> str:
    key = ed25519.Ed25519PrivateKey.generate().public_key()
    return key.public_bytes(serialization.Encoding.OpenSSH,
                            serialization.PublicFormat.OpenSSH).decode()


def clouds_yaml_with(clouds_yaml: Path, target: Path, name: str, user: str, project: str,
                     password: str) -> Path:
    """A copy of the generated clouds.yaml with a third entry, `name`, for that user."""
    clouds = yaml.safe_load(clouds_yaml.read_text())
    demo = clouds["clouds"]["novalite"]
    auth = {**demo["auth"], "username": user, "password": password, "project_name": project}
    clouds["clouds"][name] = {**demo, "auth": auth}
    target.write_text(yaml.safe_dump(clouds))
    return target
