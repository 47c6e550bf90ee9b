from tests.cloud import cloud, cloud_factory  # noqa: F401 (fixtures)
