"""The conductor's tasks: one module per operation, each a TaskBase (execute, rollback)."""
