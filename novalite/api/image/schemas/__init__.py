"""JSON schemas of the image API's documents (served at /v2/schemas/..., and used to
validate request bodies as Glance does)."""
