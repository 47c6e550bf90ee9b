"""Entry points: one per service, the all-in-one, and novalite-manage."""
