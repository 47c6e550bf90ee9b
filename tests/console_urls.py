"""Where a client connects for a console URL the compute API answered."""

from __future__ import annotations

import urllib.parse


def websocket_url(url: str) -> str:
    """Where noVNC connects for a noVNC page URL (its `path` parameter, on the page's
    host), or the URL itself for a websocket one (serial)."""
    parsed = urllib.parse.urlparse(url)
    if parsed.scheme.startswith("ws"):
        return url
    path = urllib.parse.parse_qs(parsed.query)["path"][0]
    return f"ws://{parsed.netloc}/{path}"
