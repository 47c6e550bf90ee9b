"""Where a guest's remote console listens on its compute host (Nova's ConsoleVNC and
ConsoleSerial): the API keeps it behind a token, and the console proxy connects to it."""

from __future__ import annotations

from novalite.objects import base


@base.register
class ConsoleEndpoint(base.NovaliteObject):
    VERSION = "1.0"

    host: str  # the address the console proxy reaches the compute host's listener on
    port: int
    # When one listener serves many guests, which one: the proxy first sends
    # "CONNECT <path> HTTP/1.1" and waits for a 200, as Nova's proxy does.
    internal_access_path: str | None = None
