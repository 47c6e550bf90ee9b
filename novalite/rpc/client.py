"""The caller's side of RPC: serialise, address, send, and re-raise remote errors."""

from __future__ import annotations

from typing import Any

from novalite import context as ctx_mod
from novalite.objects import codec
from novalite.rpc import serializer
from novalite.rpc.errors import RPCVersionCapError
from novalite.rpc.target import Target, parse_version
from novalite.rpc.transport import Transport


class RPCClient:
    """Sends messages to `target`; `prepare` returns a copy aimed elsewhere.

    `version_cap` is the highest API version the receivers are known to understand; a
    message prepared at a higher version is refused here instead of failing remotely.
    `idempotent`: the methods the receivers may run twice (acked when done: see
    novalite.rpc.server.ack_when_done), whose calls are sent again when their reply can
    no longer come (Transport.send's `resend`).
    """

    def __init__(
        self,
        transport: Transport,
        target: Target,
        version_cap: str | None = None,
        timeout: float | None = None,
        idempotent: frozenset[str] = frozenset(),
    ) -> None:
        self.transport = transport
        self.target = target
        self.version_cap = version_cap
        self.timeout = timeout
        self.idempotent = idempotent

    def prepare(
        self,
        server: str | None = None,
        version: str | None = None,
        fanout: bool | None = None,
        timeout: float | None = None,
    ) -> RPCClient:
        target = self.target.replace(server=server, version=version, fanout=fanout)
        return RPCClient(self.transport, target, self.version_cap, timeout or self.timeout,
                         self.idempotent)

    def can_send_version(self, version: str) -> bool:
        return self.version_cap is None or parse_version(version) <= parse_version(
            self.version_cap
        )

    def _message(self, ctx: ctx_mod.RequestContext, method: str, kwargs: dict) -> dict:
        if not self.can_send_version(self.target.version):
            raise RPCVersionCapError(
                f"Cannot send {method} at version {self.target.version}: "
                f"the version cap is {self.version_cap}"
            )
        return {
            "method": method,
            "namespace": self.target.namespace,
            "version": self.target.version,
            "context": ctx.to_dict(),
            "args": codec.serialize(kwargs),
        }

    def cast(self, ctx: ctx_mod.RequestContext, method: str, **kwargs: Any) -> None:
        """Publish; with a timeout (prepare), the broker must take it within that time."""
        self.transport.send(self.target, self._message(ctx, method, kwargs), wait_for_reply=False,
                            timeout=self.timeout)

    def call(self, ctx: ctx_mod.RequestContext, method: str, **kwargs: Any) -> Any:
        if self.target.fanout:
            raise ValueError("A fanout message cannot wait for replies: use cast")
        reply = self.transport.send(
            self.target, self._message(ctx, method, kwargs), wait_for_reply=True,
            timeout=self.timeout, resend=method in self.idempotent,
        )
        assert reply is not None, "a transport answers a call or raises"
        if reply.get("failure"):
            raise serializer.deserialize_exception(reply["failure"])
        return codec.deserialize(reply.get("result"))
