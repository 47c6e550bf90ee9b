"""JSON schemas of placement's request bodies and query strings, per microversion."""
