"""The token body, field by field as keystoneauth1, OSC and tempest read it."""

from __future__ import annotations

from novalite.api.identity import views
from novalite.identity import catalog
from novalite.identity.tokens import Token


def render(token: Token, with_catalog: bool = True) -> dict:
    payload = token.payload
    body: dict = {
        "methods": payload.methods,
        "user": {"id": token.user["id"], "name": token.user["name"],
                 "domain": views.domain_ref(token.user_domain),
                 "password_expires_at": None},
        "audit_ids": payload.audit_ids,
        "expires_at": views.timestamp(payload.expires_at),
        "issued_at": views.timestamp(payload.issued_at),
    }
    if token.project is not None and token.project_domain is not None:
        body["project"] = {"id": token.project["id"], "name": token.project["name"],
                           "domain": views.domain_ref(token.project_domain)}
        body["is_domain"] = False
        body["roles"] = [{"id": r["id"], "name": r["name"]} for r in token.roles]
        if with_catalog:
            body["catalog"] = catalog.token_catalog()
    return {"token": body}
