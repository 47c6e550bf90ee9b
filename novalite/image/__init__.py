"""The image service behind the Glance-compatible API and the compute API's image lookup:
records, who may see them, the file store, and the state machine of an image's data."""
