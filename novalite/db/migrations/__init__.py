"""Alembic environment of the novalite database (driven by novalite.db.migration)."""
