"""The scheduler: where should each instance go? See README.md for the flow."""
