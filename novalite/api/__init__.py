"""The HTTP APIs. See README.md for how a request flows."""
