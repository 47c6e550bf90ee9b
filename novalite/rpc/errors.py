"""Errors of the RPC layer itself (as opposed to errors raised by the remote method)."""

from __future__ import annotations


class MessagingError(Exception):
    pass


class MessagingTimeout(MessagingError):
    """No reply arrived in time: the server is down, overloaded or the message was lost."""


class RemoteError(MessagingError):
    """The remote method raised an exception that cannot be re-raised here by class."""

    def __init__(self, exc_type: str, value: str) -> None:
        self.exc_type = exc_type
        self.value = value
        super().__init__(f"Remote error: {exc_type} {value}")


class UnsupportedVersion(MessagingError):
    pass


class NoSuchMethod(MessagingError):
    pass


class RPCVersionCapError(MessagingError):
    pass


class TransportUnavailable(MessagingError):
    pass
