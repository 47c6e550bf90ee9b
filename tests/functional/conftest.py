"""Functional tests boot the all-in-one in this process."""

from tests.cloud import cloud, cloud_factory  # noqa: F401 (fixtures)
