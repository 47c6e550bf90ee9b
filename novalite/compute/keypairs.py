"""Key pairs (Nova's KeypairAPI): import a user's public key or generate a pair, within
the user's [quota] key_pairs; fingerprints computed as Nova computes them, so a key shows
the same fingerprint here as in Nova and in `ssh-keygen -l -E md5`. Each create, import
and delete is notified as Nova's KeypairAPI notifies it (keypair.<action>.start/.end)."""

from __future__ import annotations

import base64
import datetime
import hashlib
from typing import Any

from cryptography import x509
from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID

from novalite import exception
from novalite.compute import quotas
from novalite.conf import CONF
from novalite.db.api import keypairs as db
from novalite.notifications import events, notifier
from novalite.notifications.objects.keypair import KeypairPayload

SSH = "ssh"
X509 = "x509"


def _colon_hex(digest: str) -> str:
    return ":".join(digest[i:i + 2] for i in range(0, len(digest), 2))


def ssh_fingerprint(public_key: str) -> str:
    """MD5 of the key's decoded blob, in colon-separated hex; the key must parse."""
    try:
        serialization.load_ssh_public_key(public_key.encode())
        blob = base64.b64decode(public_key.split(" ")[1])
    except (ValueError, IndexError, TypeError, UnicodeError, UnsupportedAlgorithm):
        raise exception.InvalidKeypair(reason="failed to generate fingerprint") from None
    return _colon_hex(hashlib.md5(blob, usedforsecurity=False).hexdigest())


def x509_fingerprint(pem: str) -> str:
    """SHA-1 of the certificate, in colon-separated hex."""
    try:
        cert = x509.load_pem_x509_certificate(pem.encode())
    except (ValueError, TypeError, UnicodeError, UnsupportedAlgorithm) as exc:
        raise exception.InvalidKeypair(
            reason=f"failed to generate X509 fingerprint. Error message: {exc}") from None
    return _colon_hex(cert.fingerprint(hashes.SHA1()).hex())


def fingerprint(public_key: str, key_type: str) -> str:
    return ssh_fingerprint(public_key) if key_type == SSH else x509_fingerprint(public_key)


def _generate_ssh() -> tuple[str, str]:
    """An RSA 2048 pair: the private key in the traditional PEM form ssh clients read,
    the public key in OpenSSH form with Nova's comment."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(serialization.Encoding.PEM,
                                serialization.PrivateFormat.TraditionalOpenSSL,
                                serialization.NoEncryption()).decode()
    public = key.public_key().public_bytes(serialization.Encoding.OpenSSH,
                                           serialization.PublicFormat.OpenSSH).decode()
    return private, f"{public} Generated-by-Nova"


def _generate_x509(user_id: str) -> tuple[str, str]:
    """A self-signed certificate for the user, valid ten years (as Nova's WinRM one)."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, user_id)])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now).not_valid_after(now + datetime.timedelta(days=3650))
            .sign(key, hashes.SHA256()))
    private = key.private_bytes(serialization.Encoding.PEM,
                                serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption()).decode()
    return private, cert.public_bytes(serialization.Encoding.PEM).decode()


def _over_quota(user_id: str, delta: int, project_id: str | None = None) -> bool:
    limit = quotas.limits(project_id, user_id)["key_pairs"]
    return limit >= 0 and db.key_pair_count_by_user(user_id) + delta > limit


def _store(user_id: str, name: str, public_key: str, key_type: str,
           project_id: str | None) -> dict[str, Any]:
    """Insert within quota; as for server groups, count again after the insert so that
    concurrent creates cannot together pass the limit."""
    if _over_quota(user_id, 1, project_id):
        raise exception.KeypairLimitExceeded()
    keypair = db.key_pair_create(user_id, name, public_key,
                                 fingerprint(public_key, key_type), key_type)
    if CONF.quota.recheck_quota and _over_quota(user_id, 0, project_id):
        db.key_pair_destroy(user_id, name)
        raise exception.KeypairLimitExceeded()
    return keypair


def _payload(row: dict[str, Any]) -> KeypairPayload:
    return KeypairPayload(user_id=row["user_id"], name=row["name"],
                          fingerprint=row["fingerprint"], public_key=row["public_key"],
                          type=row["type"])


def import_key_pair(user_id: str, name: str, public_key: str, key_type: str = SSH,
                    project_id: str | None = None) -> dict[str, Any]:
    """`project_id` (the caller's) says whose key_pairs limit applies."""
    start = {"user_id": user_id, "name": name, "fingerprint": None,
             "public_key": public_key, "type": key_type}
    with events.start_end("keypair.import", lambda: _payload(start)) as outcome:
        keypair = _store(user_id, name, public_key, key_type, project_id)
        outcome.end = lambda: _payload(keypair)
    return keypair


def create_key_pair(user_id: str, name: str, key_type: str = SSH,
                    project_id: str | None = None) -> dict[str, Any]:
    """A new pair; the private key is in the result only, never stored."""
    start = {"user_id": user_id, "name": name, "fingerprint": None, "public_key": None,
             "type": key_type}
    with events.start_end("keypair.create", lambda: _payload(start)) as outcome:
        if _over_quota(user_id, 1, project_id):  # before spending the time on a key
            raise exception.KeypairLimitExceeded()
        private, public = _generate_ssh() if key_type == SSH else _generate_x509(user_id)
        keypair = _store(user_id, name, public, key_type, project_id)
        outcome.end = lambda: _payload(keypair)
    return {**keypair, "private_key": private}


def delete_key_pair(user_id: str, name: str) -> None:
    """keypair.delete.start/.end carry the key pair as it was (read only when sent)."""
    if not notifier.enabled():
        return db.key_pair_destroy(user_id, name)
    keypair = _payload(db.key_pair_get(user_id, name))
    with events.start_end("keypair.delete", lambda: keypair):
        db.key_pair_destroy(user_id, name)
