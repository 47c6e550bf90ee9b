"""The Placement API (served under /placement): route table, handlers, schemas."""
