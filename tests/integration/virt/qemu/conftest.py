"""Real guests boot in an all-in-one in this process, with the qemu driver."""

from tests.cloud import cloud_factory  # noqa: F401 (fixture)
