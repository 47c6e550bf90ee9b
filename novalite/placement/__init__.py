"""Placement's data layer: resource providers, inventories, classes, traits, aggregates,
consumers and their allocations, as SQL. No HTTP here; see README.md for the flow."""
