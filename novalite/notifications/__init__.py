"""Nova's versioned notifications: typed payloads in Nova's shape, sent through
oslo.messaging's drivers onto the bus (see README.md)."""
