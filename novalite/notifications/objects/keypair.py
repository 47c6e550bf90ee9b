"""KeypairPayload: keypair.create/import/delete, and instance.create's keypairs."""

from __future__ import annotations

import base64
import binascii
import hashlib
import ssl

from novalite.notifications.objects.base import Payload, payload

SSH, X509 = "ssh", "x509"


@payload
class KeypairPayload(Payload):
    NAME = "KeypairPayload"
    VERSION = "1.0"

    user_id: str | None
    name: str
    fingerprint: str | None
    public_key: str | None
    type: str

    @classmethod
    def from_public_key(cls, user_id: str | None, name: str, public_key: str
                        ) -> KeypairPayload:
        """The key an instance was booted with (instances keep its name and public key
        only): its type and fingerprint worked out from the key, as Nova computed them
        when the key pair was made."""
        key_type = X509 if public_key.lstrip().startswith("-----BEGIN") else SSH
        return cls(user_id=user_id, name=name, fingerprint=fingerprint(public_key, key_type),
                   public_key=public_key, type=key_type)


def fingerprint(public_key: str, key_type: str) -> str | None:
    """MD5 of an SSH key's blob or SHA-1 of a certificate, colon-separated hex; None for a
    key that does not parse (the API refused those when the key pair was made)."""
    try:
        blob = (ssl.PEM_cert_to_DER_cert(public_key.strip()) if key_type == X509
                else base64.b64decode(public_key.split()[1], validate=True))
    except (ValueError, IndexError, binascii.Error):
        return None
    digest = (hashlib.sha1(blob, usedforsecurity=False) if key_type == X509
              else hashlib.md5(blob, usedforsecurity=False)).hexdigest()
    return ":".join(digest[i:i + 2] for i in range(0, len(digest), 2))
