"""Plain versioned objects: what crosses RPC boundaries (never ORM rows)."""
