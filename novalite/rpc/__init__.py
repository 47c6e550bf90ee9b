"""RPC between services: call / cast / fanout addressed by Target, over a pluggable transport."""

from novalite.rpc.client import RPCClient
from novalite.rpc.errors import (
    MessagingTimeout,
    NoSuchMethod,
    RemoteError,
    RPCVersionCapError,
    UnsupportedVersion,
)
from novalite.rpc.server import RPCServer, ack_when_done, redelivered
from novalite.rpc.target import Target
from novalite.rpc.transport import Transport, get_transport

__all__ = [
    "MessagingTimeout",
    "NoSuchMethod",
    "RPCClient",
    "RPCServer",
    "RPCVersionCapError",
    "RemoteError",
    "Target",
    "Transport",
    "UnsupportedVersion",
    "ack_when_done",
    "get_transport",
    "redelivered",
]
