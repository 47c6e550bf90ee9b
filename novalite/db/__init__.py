"""The SQL database: models, engine/session set-up, migrations and query functions."""
