"""Query functions for the compute resources, one module per resource; each opens its own
transaction and returns plain objects (novalite.objects) or values, never ORM rows. The
other services keep their SQL in their own packages (see db/README.md)."""
