"""The conductor: orchestrates builds and is the database for compute services."""
