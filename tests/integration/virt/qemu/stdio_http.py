"""Serves the directory given as argument for one HTTP connection on stdin and stdout,
inetd-style. QEMU user networking's guestfwd runs it for each guest connection to the
metadata address (`cmd:`): its other form, a chardev, is one stream for all of them."""

import sys
from http.server import SimpleHTTPRequestHandler


class StdioHandler(SimpleHTTPRequestHandler):
    def setup(self) -> None:
        self.rfile, self.wfile = sys.stdin.buffer, sys.stdout.buffer

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: QEMU gives this process the guest's connection as stderr too."""


if __name__ == "__main__":
    StdioHandler(None, ("guest", 0), None, directory=sys.argv[1])
