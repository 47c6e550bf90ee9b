"""Shared plumbing of the per-service RPC API clients."""

from __future__ import annotations

from novalite.conf import CONF
from novalite.rpc import RPCClient, Target, get_transport


def make_client(topic: str, version: str, namespace: str | None = None,
                idempotent: frozenset[str] = frozenset()) -> RPCClient:
    """A client for `topic`, capped at the [upgrade_levels] version for that service;
    `idempotent`: RPCClient's."""
    cap = getattr(CONF.upgrade_levels, topic, None)
    return RPCClient(
        get_transport(CONF.transport_url),
        Target(topic=topic, version=version, namespace=namespace),
        version_cap=cap,
        timeout=CONF.rpc_response_timeout,
        idempotent=idempotent,
    )
