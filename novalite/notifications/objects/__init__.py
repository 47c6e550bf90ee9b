"""Nova's notification payloads, one module per subject as in nova/notifications/objects."""
